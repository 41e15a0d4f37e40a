// cuBLASLt's functions looked up in the shared library at run time (CublasLtLoader.cuh says why).
#include "numerics/cuda/CublasLtLoader.cuh"

#include <dlfcn.h>

#include <stdexcept>

namespace ccsim::numerics::cuda {

namespace {
#define CCSIM_STR2(x) #x
#define CCSIM_STR(x) CCSIM_STR2(x)

void* open_library()
{
  for (const char* name : {"libcublasLt.so." CCSIM_STR(CUBLAS_VER_MAJOR), "libcublasLt.so"})
    if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return h;
  throw std::runtime_error("cuBLASLt not found (libcublasLt.so." CCSIM_STR(
      CUBLAS_VER_MAJOR) "): add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH");
}

template <typename F>
void bind(void* lib, F& f, const char* name)
{
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f)
    throw std::runtime_error(std::string("cuBLASLt has no ") + name);
}

CublasLt load()
{
  void* lib = open_library(); // kept open for the process's life
  CublasLt l{};
  bind(lib, l.create, "cublasLtCreate");
  bind(lib, l.destroy, "cublasLtDestroy");
  bind(lib, l.get_version, "cublasLtGetVersion");
  bind(lib, l.desc_create, "cublasLtMatmulDescCreate");
  bind(lib, l.desc_set, "cublasLtMatmulDescSetAttribute");
  bind(lib, l.desc_destroy, "cublasLtMatmulDescDestroy");
  bind(lib, l.layout_create, "cublasLtMatrixLayoutCreate");
  bind(lib, l.layout_set, "cublasLtMatrixLayoutSetAttribute");
  bind(lib, l.layout_destroy, "cublasLtMatrixLayoutDestroy");
  bind(lib, l.pref_create, "cublasLtMatmulPreferenceCreate");
  bind(lib, l.pref_set, "cublasLtMatmulPreferenceSetAttribute");
  bind(lib, l.pref_destroy, "cublasLtMatmulPreferenceDestroy");
  bind(lib, l.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  bind(lib, l.matmul, "cublasLtMatmul");
  return l;
}
} // namespace

const CublasLt& cublaslt()
{
  static const CublasLt lib = load();
  return lib;
}

void check_cublas(cublasStatus_t s, const char* what)
{
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLASLt status " + std::to_string(static_cast<int>(s)));
}

} // namespace ccsim::numerics::cuda
