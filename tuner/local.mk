# tuner: see the module's header for what it owns.
