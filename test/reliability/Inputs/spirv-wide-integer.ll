; A kernel that LLVM 22's SPIR-V backend cannot compile: it has no way to
; legalize an i1000 division and ends the process ("unable to legalize
; instruction") when nothing contains it.
target triple = "spirv64-amd-amdhsa"

define spir_kernel void @k(ptr addrspace(1) %p) {
  %v = load i1000, ptr addrspace(1) %p
  %r = udiv i1000 %v, 7
  store i1000 %r, ptr addrspace(1) %p
  ret void
}
