#include "/work/main/tests/unit/slurm/slurm_test.cpp"
#include "/work/main/tests/unit/slurm/verify_job_test.cpp"
