//! Vitrine's cache engine.
