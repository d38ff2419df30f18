// Asks comgr (libamd_comgr) which code object of a HIP fat binary it picks
// for each device ISA, as the HIP runtime does when a program registers its
// fat binary (amd_comgr_lookup_code_object).
//
//   comgr-lookup --isas
//       prints comgr's version and the ISA names it knows.
//   comgr-lookup [--kind=fatbin|bytes|executable] [--one-list] FILE ISA[=OUT]...
//       FILE is a clang-offload-bundler bundle (the .hip_fatbin section) or,
//       with --kind=executable, one code object. Prints, for each ISA,
//         ISA: offset=N size=N abi=N e_flags=0xN
//       for the code object comgr picks, or `ISA: none` when it picks none.
//       The picked bytes must be an AMDGPU ELF inside FILE; with =OUT they are
//       written to OUT. Each ISA is looked up on its own (a machine with one
//       device), or with --one-list all in one query list (the HIP runtime
//       asks once for all its devices' ISAs).
//
// Exit status: 0 when comgr answered, 1 when comgr reported an error or the
// picked bytes are no AMDGPU ELF, 2 on a usage or I/O error.
#include <amd_comgr.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int comgrFailed(const char *What, amd_comgr_status_t Status) {
  const char *Text = "unknown status";
  amd_comgr_status_string(Status, &Text);
  fprintf(stderr, "comgr-lookup: error: %s: %s (%d)\n", What, Text,
          (int)Status);
  return 1;
}

static int listIsas(void) {
  size_t Major = 0, Minor = 0, Count = 0;
  amd_comgr_get_version(&Major, &Minor);
  printf("comgr %zu.%zu\n", Major, Minor);
  amd_comgr_status_t Status = amd_comgr_get_isa_count(&Count);
  if (Status != AMD_COMGR_STATUS_SUCCESS)
    return comgrFailed("amd_comgr_get_isa_count", Status);
  for (size_t I = 0; I < Count; ++I) {
    const char *Name = NULL;
    Status = amd_comgr_get_isa_name(I, &Name);
    if (Status != AMD_COMGR_STATUS_SUCCESS)
      return comgrFailed("amd_comgr_get_isa_name", Status);
    printf("isa %s\n", Name);
  }
  return 0;
}

static char *readFile(const char *Path, size_t *Size) {
  FILE *F = fopen(Path, "rb");
  if (!F) {
    perror(Path);
    return NULL;
  }
  size_t Cap = 1 << 16, Len = 0;
  char *Buf = malloc(Cap);
  for (;;) {
    char *Grown = Len == Cap ? realloc(Buf, Cap *= 2) : Buf;
    if (!Grown) {
      fprintf(stderr, "comgr-lookup: error: out of memory\n");
      free(Buf);
      fclose(F);
      return NULL;
    }
    Buf = Grown;
    size_t N = fread(Buf + Len, 1, Cap - Len, F);
    Len += N;
    if (N == 0)
      break;
  }
  int Failed = ferror(F);
  fclose(F);
  if (Failed) {
    perror(Path);
    free(Buf);
    return NULL;
  }
  *Size = Len;
  return Buf;
}

static uint16_t read16(const unsigned char *P) { return P[0] | P[1] << 8; }
static uint32_t read32(const unsigned char *P) {
  return read16(P) | (uint32_t)read16(P + 2) << 16;
}

// Checks that [Offset, Offset + Size) of the file is a 64-bit little-endian
// AMDGPU ELF, prints its ABI version and e_flags, and writes it to Out.
static int checkCodeObject(const char *Isa, const char *Data, size_t FileSize,
                           uint64_t Offset, uint64_t Size, const char *Out) {
  if (Offset > FileSize || Size > FileSize - Offset) {
    printf("%s: offset=%llu size=%llu\n", Isa, (unsigned long long)Offset,
           (unsigned long long)Size);
    fprintf(stderr, "comgr-lookup: error: %s: the code object ends past the "
            "end of the file (%zu bytes)\n", Isa, FileSize);
    return 1;
  }
  const unsigned char *E = (const unsigned char *)Data + Offset;
  if (Size < 64 || memcmp(E, "\177ELF", 4) != 0 || E[4] != 2 /*ELFCLASS64*/ ||
      E[5] != 1 /*ELFDATA2LSB*/ || read16(E + 18) != 224 /*EM_AMDGPU*/) {
    printf("%s: offset=%llu size=%llu\n", Isa, (unsigned long long)Offset,
           (unsigned long long)Size);
    fprintf(stderr, "comgr-lookup: error: %s: the code object at offset %llu "
            "is no 64-bit AMDGPU ELF\n", Isa, (unsigned long long)Offset);
    return 1;
  }
  printf("%s: offset=%llu size=%llu abi=%u e_flags=0x%x\n", Isa,
         (unsigned long long)Offset, (unsigned long long)Size, E[8],
         read32(E + 48));
  if (Out) {
    FILE *F = fopen(Out, "wb");
    if (!F || fwrite(E, 1, Size, F) != Size || fclose(F) != 0) {
      perror(Out);
      return 2;
    }
  }
  return 0;
}

int main(int Argc, char **Argv) {
  amd_comgr_data_kind_t Kind = AMD_COMGR_DATA_KIND_FATBIN;
  int OneList = 0, Arg = 1;
  for (; Arg < Argc && strncmp(Argv[Arg], "--", 2) == 0; ++Arg) {
    if (strcmp(Argv[Arg], "--isas") == 0)
      return listIsas();
    if (strcmp(Argv[Arg], "--one-list") == 0)
      OneList = 1;
    else if (strcmp(Argv[Arg], "--kind=fatbin") == 0)
      Kind = AMD_COMGR_DATA_KIND_FATBIN;
    else if (strcmp(Argv[Arg], "--kind=bytes") == 0)
      Kind = AMD_COMGR_DATA_KIND_BYTES;
    else if (strcmp(Argv[Arg], "--kind=executable") == 0)
      Kind = AMD_COMGR_DATA_KIND_EXECUTABLE;
    else {
      fprintf(stderr, "comgr-lookup: error: unknown option %s\n", Argv[Arg]);
      return 2;
    }
  }
  if (Argc - Arg < 2) {
    fprintf(stderr, "usage: comgr-lookup --isas\n"
                    "       comgr-lookup [--kind=fatbin|bytes|executable] "
                    "[--one-list] FILE ISA[=OUT]...\n");
    return 2;
  }

  size_t FileSize = 0;
  char *Data = readFile(Argv[Arg], &FileSize);
  if (!Data)
    return 2;

  size_t N = Argc - Arg - 1;
  char **Isas = calloc(N, sizeof(char *));
  char **Outs = calloc(N, sizeof(char *));
  amd_comgr_code_object_info_t *Query = calloc(N, sizeof(*Query));
  if (!Isas || !Outs || !Query) {
    fprintf(stderr, "comgr-lookup: error: out of memory\n");
    return 2;
  }
  for (size_t I = 0; I < N; ++I) {
    Isas[I] = strdup(Argv[Arg + 1 + I]);
    char *Eq = strchr(Isas[I], '=');
    if (Eq) {
      *Eq = '\0';
      Outs[I] = Eq + 1;
    }
  }

  amd_comgr_data_t Object;
  amd_comgr_status_t Status = amd_comgr_create_data(Kind, &Object);
  if (Status != AMD_COMGR_STATUS_SUCCESS)
    return comgrFailed("amd_comgr_create_data", Status);
  Status = amd_comgr_set_data(Object, FileSize, Data);
  if (Status != AMD_COMGR_STATUS_SUCCESS)
    return comgrFailed("amd_comgr_set_data", Status);

  // One lookup per ISA, or one for all of them. Offset and size are set to
  // something comgr must overwrite.
  size_t PerCall = OneList ? N : 1;
  for (size_t First = 0; First < N; First += PerCall) {
    for (size_t I = First; I < First + PerCall; ++I) {
      Query[I].isa = Isas[I];
      Query[I].offset = ~0ull;
      Query[I].size = ~(size_t)0;
    }
    Status = amd_comgr_lookup_code_object(Object, Query + First, PerCall);
    if (Status != AMD_COMGR_STATUS_SUCCESS)
      return comgrFailed("amd_comgr_lookup_code_object", Status);
  }

  int Result = 0;
  for (size_t I = 0; I < N; ++I) {
    if (Query[I].size == 0) {
      if (Query[I].offset != 0) {
        fprintf(stderr, "comgr-lookup: error: %s: size 0 but offset %llu\n",
                Isas[I], (unsigned long long)Query[I].offset);
        Result = 1;
      }
      printf("%s: none\n", Isas[I]);
      continue;
    }
    int R = checkCodeObject(Isas[I], Data, FileSize, Query[I].offset,
                            Query[I].size, Outs[I]);
    if (R > Result)
      Result = R;
  }

  amd_comgr_release_data(Object);
  for (size_t I = 0; I < N; ++I)
    free(Isas[I]);
  free(Isas);
  free(Outs);
  free(Query);
  free(Data);
  return Result;
}
