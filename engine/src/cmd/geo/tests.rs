//! GEO* command tests through the engine, with replies checked against redis-server 7.0.15.
