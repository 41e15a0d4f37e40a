#pragma once
// cuBLASLt loaded at run time (dlopen): the compute benchmark (ComputeBenchCuda.cu) is its only user, and linking it
// would make every ccsim binary need a 540 MB library to start, on machines that never time a GEMM. Only the
// declarations of cublasLt.h are used; the functions are looked up by name in libcublasLt.so.<major>.

#include <cublasLt.h>

#include <string>

namespace ccsim::numerics::cuda {

struct CublasLt {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtDestroy) destroy;
  decltype(&cublasLtGetVersion) get_version;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
  decltype(&cublasLtMatmul) matmul;
};

/// The library's functions, loaded once (libcublasLt.so.<CUBLAS_VER_MAJOR>, then libcublasLt.so, through the
/// loader's search path: LD_LIBRARY_PATH, the cache). Throws std::runtime_error naming what is missing.
const CublasLt& cublaslt();

/// Throws "what: cuBLASLt status N" unless s is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t s, const char* what);

} // namespace ccsim::numerics::cuda
