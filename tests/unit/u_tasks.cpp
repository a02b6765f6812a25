#include "/work/main/src/tasks/lint.cpp"
#include "/work/main/src/tasks/oracle.cpp"
#include "/work/main/src/tasks/suite.cpp"
