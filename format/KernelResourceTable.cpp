//===- format/KernelResourceTable.cpp - Kernel resources, shown -----------===//

#include "format/KernelResourceTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Format.h"

#include <functional>

using namespace llvm;

namespace offload {

std::string getKernelDisplayName(const KernelResources &Row, bool Demangle) {
  return Demangle ? llvm::demangle(Row.Name) : Row.Name;
}

namespace {

/// A column of the table: its header, whether its values are numbers
/// (aligned right), and a row's value, if the row has one.
struct Column {
  StringRef Header;
  bool Numeric;
  std::function<std::optional<std::string>(const KernelResources &)> Value;
};

template <typename T>
std::optional<std::string> number(const std::optional<T> &V) {
  if (!V)
    return std::nullopt;
  return std::to_string(*V);
}

} // namespace

static std::vector<Column> getColumns() {
  return {
      {"ARCH", false, [](const KernelResources &R) { return R.Arch; }},
      {"REGS", true,
       [](const KernelResources &R) { return number(R.Registers); }},
      {"SGPRS", true, [](const KernelResources &R) { return number(R.SGPRs); }},
      {"VGPRS", true, [](const KernelResources &R) { return number(R.VGPRs); }},
      {"AGPRS", true, [](const KernelResources &R) { return number(R.AGPRs); }},
      {"SPILLS S/V", true,
       [](const KernelResources &R) -> std::optional<std::string> {
         if (!R.SGPRSpills && !R.VGPRSpills)
           return std::nullopt;
         return number(R.SGPRSpills).value_or("-") + "/" +
                number(R.VGPRSpills).value_or("-");
       }},
      {"LDS", true,
       [](const KernelResources &R) { return number(R.LDSBytes); }},
      {"SCRATCH", true,
       [](const KernelResources &R) { return number(R.ScratchBytes); }},
      {"CONST", true,
       [](const KernelResources &R) { return number(R.ConstantBytes); }},
      {"STACK", false,
       [](const KernelResources &R) -> std::optional<std::string> {
         if (!R.DynamicStack)
           return std::nullopt;
         return std::string(*R.DynamicStack ? "dynamic" : "static");
       }},
      {"WAVE", true,
       [](const KernelResources &R) { return number(R.WavefrontSize); }},
      {"MAX WG", true,
       [](const KernelResources &R) { return number(R.MaxWorkgroupSize); }},
      {"WAVES/SIMD", true,
       [](const KernelResources &R) { return number(R.WavesPerSIMD); }},
  };
}

void printKernelResourceTable(raw_ostream &OS, ArrayRef<KernelResources> Rows,
                              bool Demangle) {
  if (Rows.empty())
    return;
  // The cells, and the columns some row fills, each as wide as its widest.
  std::vector<Column> Columns;
  std::vector<std::vector<std::string>> Cells(Rows.size());
  std::vector<size_t> Widths;
  for (Column &C : getColumns()) {
    std::vector<std::optional<std::string>> Values;
    for (const KernelResources &Row : Rows)
      Values.push_back(C.Value(Row));
    if (none_of(Values, [](const auto &V) { return V.has_value(); }))
      continue;
    size_t Width = C.Header.size();
    for (auto [I, V] : enumerate(Values)) {
      Cells[I].push_back(V.value_or("-"));
      Width = std::max(Width, Cells[I].back().size());
    }
    Columns.push_back(std::move(C));
    Widths.push_back(Width);
  }
  auto PrintLine = [&](function_ref<StringRef(size_t)> Cell, StringRef Last) {
    OS << "  ";
    for (size_t I = 0; I != Columns.size(); ++I) {
      if (Columns[I].Numeric)
        OS << right_justify(Cell(I), Widths[I]);
      else
        OS << left_justify(Cell(I), Widths[I]);
      OS << "  ";
    }
    OS << Last << "\n";
  };
  for (size_t I = 0; I != Rows.size(); ++I) {
    // A code object's kernels come together, under its container.
    if (I == 0 || Rows[I].Container != Rows[I - 1].Container) {
      OS << Rows[I].Container << "\n";
      PrintLine([&](size_t C) { return Columns[C].Header; }, "KERNEL");
    }
    PrintLine([&](size_t C) -> StringRef { return Cells[I][C]; },
              getKernelDisplayName(Rows[I], Demangle));
  }
}

void writeKernelResourcesJSON(json::OStream &J, const KernelResources &Row,
                              bool Demangle) {
  auto Optional = [&](StringRef Key, const auto &V) {
    if (V)
      J.attribute(Key, *V);
    else
      J.attribute(Key, nullptr);
  };
  J.object([&] {
    J.attribute("container", Row.Container);
    J.attribute("triple", Row.Triple);
    J.attribute("arch", Row.Arch);
    J.attribute("kernel", getKernelDisplayName(Row, Demangle));
    J.attribute("mangled_name", Row.Name);
    Optional("registers", Row.Registers);
    Optional("sgprs", Row.SGPRs);
    Optional("vgprs", Row.VGPRs);
    Optional("agprs", Row.AGPRs);
    Optional("sgpr_spills", Row.SGPRSpills);
    Optional("vgpr_spills", Row.VGPRSpills);
    Optional("lds_bytes", Row.LDSBytes);
    Optional("scratch_bytes", Row.ScratchBytes);
    Optional("constant_bytes", Row.ConstantBytes);
    Optional("dynamic_stack", Row.DynamicStack);
    Optional("wavefront_size", Row.WavefrontSize);
    Optional("max_workgroup_size", Row.MaxWorkgroupSize);
    Optional("waves_per_simd", Row.WavesPerSIMD);
  });
}

} // namespace offload
