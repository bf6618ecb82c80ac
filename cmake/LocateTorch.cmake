# Finds LibTorch. Order: an explicit Torch_DIR / CMAKE_PREFIX_PATH; else the torch of
# SPEEDBENCH_PYTHON (default: the venv made by scripts/install-deps, else python3 on PATH),
# asked for torch.utils.cmake_prefix_path. One recipe serves this machine and the GPU machines.
if(NOT Torch_DIR)
  set(_default_venv "$ENV{HOME}/.cache/speedbench/venv-torch2.11.0")
  if(DEFINED ENV{SPEEDBENCH_VENV})
    set(_default_venv "$ENV{SPEEDBENCH_VENV}")
  endif()
  if(NOT SPEEDBENCH_PYTHON)
    if(EXISTS "${_default_venv}/bin/python")
      set(SPEEDBENCH_PYTHON "${_default_venv}/bin/python")
    else()
      find_program(SPEEDBENCH_PYTHON NAMES python3 python)
    endif()
  endif()
  execute_process(
    COMMAND "${SPEEDBENCH_PYTHON}" -c "import torch; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE _torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _torch_rc ERROR_QUIET)
  if(_torch_rc EQUAL 0 AND _torch_prefix)
    list(APPEND CMAKE_PREFIX_PATH "${_torch_prefix}")
    message(STATUS "LibTorch from ${SPEEDBENCH_PYTHON}: ${_torch_prefix}")
  else()
    message(FATAL_ERROR
      "No LibTorch found: '${SPEEDBENCH_PYTHON}' cannot import torch.\n"
      "Run scripts/install-deps (creates ${_default_venv}), or pass -DTorch_DIR=... "
      "or -DSPEEDBENCH_PYTHON=/path/to/python-with-torch.")
  endif()
endif()
set(SPEEDBENCH_PYTHON "${SPEEDBENCH_PYTHON}" CACHE FILEPATH "Python whose torch provides LibTorch")
find_package(Torch REQUIRED)

# The torch wheel's libtorch exports copies of libstdc++'s std::filesystem functions, some of
# which crash (pytorch/pytorch#133437: std::filesystem::remove_all jumps to address 0). Putting
# libstdc++ ahead of libtorch in an executable's DT_NEEDED list makes the dynamic linker bind
# those symbols to libstdc++'s own, working definitions.
function(speedbench_prefer_system_libstdcxx target)
  target_link_options(${target} BEFORE PRIVATE "LINKER:--push-state,--no-as-needed,-lstdc++,--pop-state")
endfunction()
