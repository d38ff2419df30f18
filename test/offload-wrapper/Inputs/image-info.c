// Stands in for a runtime that has __tgt_register_image_info: prints what the
// legacy registration passes, once per call.
#include <stdio.h>

struct ImageInfo {
  int Version, ImageNumber, NumberImages;
  const char *OffloadArch, *CompileOpts;
};

void __tgt_register_image_info(struct ImageInfo *Info) {
  printf("image-info v%d %d/%d arch=%s opts=%s\n", Info->Version,
         Info->ImageNumber, Info->NumberImages, Info->OffloadArch,
         Info->CompileOpts ? Info->CompileOpts : "(null)");
}
