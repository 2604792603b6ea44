// The precompiled header of every GoogleTest binary is built with this target (plasmient_test in
// the top CMakeLists.txt); the target itself has nothing to test.
