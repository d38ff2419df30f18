// Lists the offload images in the files named on the command line, with the
// installed format library, and emits their OpenMP registration object with
// the installed wrapper-ir library.
#include "format/FindOffloadBinaries.h"
#include "wrapper-ir/Emit.h"
#include "wrapper-ir/Registration.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static int fail(Error E) {
  logAllUnhandledErrors(std::move(E), errs(), "list-images: ");
  return 1;
}

int main(int argc, char **argv) {
  offload::OffloadBinaryFinder Finder;
  for (int I = 1; I < argc; ++I)
    if (Error E = Finder.addFile(argv[I]))
      return fail(std::move(E));

  std::vector<offload::ImageToRegister> Images;
  for (const offload::FoundOffloadBinary &Found : Finder.binaries()) {
    for (const offload::OffloadImage &Image : Found.Binary.Images) {
      outs() << "image v" << Found.Binary.Version << " "
             << offload::getOffloadKindName(Image.TheOffloadKind) << " "
             << Image.getTriple() << " " << Image.getArch() << " "
             << offload::getImageKindName(Image.TheImageKind) << " in "
             << Found.Origin.describe() << "\n";
      offload::ImageToRegister R;
      R.Data = Image.Image;
      R.ImageEnd = Image.Image.size();
      R.Arch = Image.getArch().str();
      Images.push_back(R);
    }
  }

  LLVMContext Context;
  Expected<std::unique_ptr<Module>> M = offload::buildRegistrationModule(
      Context, Triple("x86_64-pc-linux-gnu"), Images, {});
  if (!M)
    return fail(M.takeError());
  Expected<SmallString<0>> Object = offload::emitModule(**M, {});
  if (!Object)
    return fail(Object.takeError());
  outs() << "registration object: "
         << (Object->str().starts_with("\x7f" "ELF") ? "ELF" : "not ELF")
         << "\n";
  return 0;
}
