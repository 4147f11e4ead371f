//! Model-based property tests of the engine (being written).
