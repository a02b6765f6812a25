#include "/work/main/tests/unit/run/run_status_test.cpp"
