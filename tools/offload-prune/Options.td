//===- tools/offload-prune/Options.td - offload-prune's options -----------===//
//
// Spelled with two dashes or one; options with a value take it joined
// (--offload-arch=gfx90a) or as the next argument (-o out.o).
//
//===----------------------------------------------------------------------===//

include "llvm/Option/OptParser.td"

class F<string name, string help> : Flag<["--", "-"], name>, HelpText<help>;

multiclass Eq<string name, string metavar, string help> {
  def NAME : Separate<["--", "-"], name>;
  def NAME#_eq : Joined<["--", "-"], name#"=">, Alias<!cast<Separate>(NAME)>,
                 MetaVarName<metavar>, HelpText<help>;
}

defm offload_arch : Eq<"offload-arch", "<target-id>[,...]",
  "Keep the device code for these target IDs (gfx90a, gfx90a:xnack+, sm_90)">;
defm offload_targets : Eq<"offload-targets", "<triple>[,...]",
  "Keep only the device code of these triples">;
def keep_ptx : F<"keep-ptx", "Also keep the newest PTX of each container">;
def list_only : F<"list", "Print what would be kept and removed; write nothing">;
def output : Separate<["-"], "o">, MetaVarName<"<file>">,
  HelpText<"Write the pruned file to <file> (default: replace the input)">;
def output_eq : Joined<["-"], "o">, Alias<output>;
def help : F<"help", "Print this help">;
def version : F<"version", "Print the version">;
