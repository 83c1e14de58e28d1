# CTest bench_smoke: runs schedhost-bench on a 10-node SchedulingBasic and checks that it prints
# the row and writes a results file that parses as JSON with that row. Timing is never checked.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(out ${WORK_DIR}/results.json)
execute_process(
  COMMAND ${DRIVER} --only SchedulingBasic/500Nodes --nodes 10 --init 5 --measured 20
          --no-file-run --no-fork --out ${out}
  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "schedhost-bench exited with ${rc}\n${stdout}\n${stderr}")
endif()
if(NOT stdout MATCHES "SchedulingBasic/500Nodes +10 +5 +20 ")
  message(FATAL_ERROR "no row for the workload in:\n${stdout}")
endif()
file(READ ${out} text)
string(JSON count ERROR_VARIABLE err LENGTH "${text}" workloads)
if(err)
  message(FATAL_ERROR "results file is not valid JSON: ${err}")
endif()
string(JSON scheduled GET "${text}" workloads 0 scheduled)
string(JSON nodes GET "${text}" workloads 0 nodes)
if(NOT count EQUAL 1 OR NOT scheduled EQUAL 20 OR NOT nodes EQUAL 10)
  message(FATAL_ERROR "unexpected results: ${count} rows, ${scheduled} scheduled, ${nodes} nodes")
endif()
