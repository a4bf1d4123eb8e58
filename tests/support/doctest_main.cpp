// doctest 2.4.9 (Debian 12's) uses DBL_EPSILON in its runner without <cfloat>, which libc++ does
// not bring in otherwise (the macOS cross tier, build.sh <arch> tests, found it).
#include <cfloat>
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
