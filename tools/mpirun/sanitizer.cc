// Under --enable-sanitizers: LeakSanitizer must not fail mpirun for what libpmix and hwloc keep
// allocated until exit (libpmix 4.2.2 does not free everything in PMIx_server_finalize). Unused,
// and harmless, in a normal build.
extern "C" __attribute__((used, visibility("default"))) const char *__lsan_default_suppressions() {
  return "leak:libpmix.so\nleak:libhwloc.so\n";
}

extern "C" __attribute__((used, visibility("default"))) const char *__lsan_default_options() {
  return "print_suppressions=0";
}
