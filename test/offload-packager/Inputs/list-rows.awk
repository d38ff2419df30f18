# Turns `offload-packager --list` output into the rows objdump-rows.awk makes:
#   <object> <triple> <arch> <producer> <image kind>
# where <object> is the origin up to its first ':' (file names here hold
# none), without the section and offset. The origin ends at ": v<version>"
# (a section name may hold spaces).
{
  at = match($0, /: v[0-9]/)
  obj = substr($0, 1, at - 1)
  n = split(substr($0, at + 2), f, " ")
  sub(/\+0x[0-9A-F]+$/, "", obj)
  sub(/:.*$/, "", obj)
  print obj, f[4], f[5], f[3], f[2]
}
