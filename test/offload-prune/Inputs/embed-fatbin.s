# A fat binary made by hand (fatbin.bin, in the directory the assembler runs
# in) with its __hip_fatbin_wrapper, as clang emits them, for linking into a
# program.
  .section .hip_fatbin,"a",@progbits
  .p2align 12
fatbin:
  .incbin "fatbin.bin"
  .section .hipFatBinSegment,"aw",@progbits
  .p2align 3
__hip_fatbin_wrapper:
  .long 0x48495046, 1
  .quad fatbin
  .quad 0
  .section .note.GNU-stack,"",@progbits
