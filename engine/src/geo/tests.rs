//! Unit tests of the geohash arithmetic against digits redis-server 7.0.15 prints.
