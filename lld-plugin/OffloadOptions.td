//===- lld-plugin/OffloadOptions.td - ld.lld-offload's own options --------===//
//
// The options ld.lld-offload takes besides ld.lld's: their spellings, the
// values they take and their help. LinkOptions.cpp parses the command line
// with this table before LLD sees it (whatever it does not match is LLD's),
// --help lists the options that have a help text, and
// test/docs/option-table.test checks docs/ld.lld-offload.md's option table
// against that list.
//
// Each option is spelled with two dashes or one (-offload-jobs=2), as LLD's
// long options are.
//
//===----------------------------------------------------------------------===//

include "llvm/Option/OptParser.td"

// An option without a value.
class F<string name, string help> : Flag<["--", "-"], name>, HelpText<help>;

// An option with a value, joined (--offload-jobs=2) or as the next argument
// (--offload-jobs 2, as CMake's LINKER:--offload-jobs,2 passes it). The
// parser sees one option (NAME), whose value the joined spelling gives too.
multiclass Eq<string name, string metavar, string help> {
  def NAME : Separate<["--", "-"], name>;
  def NAME#_eq : Joined<["--", "-"], name#"=">, Alias<!cast<Separate>(NAME)>,
                 MetaVarName<metavar>, HelpText<help>;
}

// An option whose value is optional and joined only: written alone, it
// takes no value, and the next argument stays LLD's. Two options: NAME
// (alone) and NAME_eq (with the value).
multiclass OptionalEq<string name, string metavar, string help> {
  def NAME : Flag<["--", "-"], name>, MetaVarName<metavar>, HelpText<help>;
  def NAME#_eq : Joined<["--", "-"], name#"=">;
}

def no_offload : F<"no-offload", "Link as ld.lld would, ignoring device code">;

defm offload_arch : Eq<"offload-arch", "<target-id>[,...]",
  "Link device code only for these targets (or $LLD_OFFLOAD_ARCH)">;
defm offload_cache_dir : Eq<"offload-cache-dir", "<dir>",
  "Keep linked device images in <dir> (or $LLD_OFFLOAD_CACHE_DIR)">;
defm offload_cache_policy : Eq<"offload-cache-policy", "<policy>",
  "Prune the cache: as --thinlto-cache-policy">;
defm offload_remote_cache : Eq<"offload-remote-cache", "<url>[|attr=value...]",
  "Share device links over HTTP (or $LLD_OFFLOAD_REMOTE_CACHE)">;
defm offload_compress : OptionalEq<"offload-compress", "[=<level>]",
  "Compress HIP fat binaries (CCOB, zstd)">;
defm offload_compress_version : Eq<"offload-compress-version", "2|3",
  "CCOB version to write (default 3)">;
defm offload_cuda_path : Eq<"offload-cuda-path", "<dir>",
  "CUDA toolkit for NVPTX links (default /usr/local/cuda)">;
defm offload_device_lib : Eq<"offload-device-lib", "[<triple>=]<file>",
  "Device library (bitcode or archive) for the device links">;
defm offload_device_linker_arg : Eq<"offload-device-linker-arg",
  "[<triple>=]<arg>", "Pass <arg> to the device links">;
defm offload_distributor : Eq<"offload-distributor", "<program>|none",
  "Send device links to a DTLTO distributor (default: --thinlto-distributor=)">;
defm offload_distributor_arg : Eq<"offload-distributor-arg", "<arg>",
  "Pass <arg> to the distributor">;
defm offload_distributor_timeout : Eq<"offload-distributor-timeout",
  "<seconds>", "Link locally what the distributor has not done by then (default 600)">;
def offload_dry_run : F<"offload-dry-run",
  "Print the plan and the commands; write nothing">;
defm offload_extract : Eq<"offload-extract", "<arch>",
  "Take <arch>'s device code from every archive member">;
defm offload_jobs : Eq<"offload-jobs", "<n>|jobserver",
  "Run device links in parallel (default 1)">;
defm offload_large_fatbin_threshold : Eq<"offload-large-fatbin-threshold",
  "<bytes>", "Place fat binaries this large after .bss (default 1 GiB)">;
defm offload_relocatable : Eq<"offload-relocatable", "fat|link",
  "With -r: keep device code fat (default) or link it now">;
defm offload_resource_usage : OptionalEq<"offload-resource-usage",
  "[=<file>]", "Print the linked kernels' resources (to <file>: as JSON)">;
defm offload_runtime_path : Eq<"offload-runtime-path", "<dir>",
  "Take the offload runtime (libomptarget.so) from <dir>">;
defm offload_targets : Eq<"offload-targets", "<triple>[,...]",
  "Link device code only for these device triples">;
def offload_save_temps : F<"offload-save-temps",
  "Keep intermediates in <output>.offload-temps/">;
def offload_verbose : F<"offload-verbose",
  "Print the images, commands and pass times">;

// Every other option that starts with offload- is ours as well, misspelled:
// an error with a suggestion, never an argument for LLD. The parser tries a
// name before the names that are prefixes of it: this one is taken only when
// no other matches.
def offload_unknown : Joined<["--", "-"], "offload-">, Flags<[HelpHidden]>;
