# Turns `llvm-objdump --offloading` output into one row per image:
#   <object> <triple> <arch> <producer> <image kind>
# with the image kind spelled as offload-packager --list spells it (o, bc,
# cubin, fatbin, s, - for none) and "-" for an empty arch.
/file format/ { obj = $1; sub(/:$/, "", obj) }
/^kind/ {
  k = $2; if (NF > 2) k = k " " $3
  if (k == "elf") k = "o"; else if (k == "llvm ir") k = "bc"
  else if (k == "fatbinary") k = "fatbin"; else if (k == "ptx") k = "s"
  else if (k == "<none>") k = "-"
}
/^arch/ { a = (NF > 1) ? $2 : "-" }
/^triple/ { t = $2 }
/^producer/ { print obj, t, a, $2, k }
