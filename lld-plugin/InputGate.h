//===- lld-plugin/InputGate.h - An input the host link waits for -*- C++
//-*-===//
//
// The host link need not wait for all that ld.lld-offload reads before it.
// LLD spends its first tens of milliseconds opening the inputs, on one core,
// and a large program's archive members can be read on the other meanwhile
// (LinkInputs::readArchives()). The registration object is among the last
// inputs LLD opens: a gate puts a named pipe in its place. LLD blocks reading
// it until the gate opens, and reads the object, or stays shut, and reads a
// line it rejects as a linker script: LLD then stops once it has loaded its
// inputs, before it writes anything, and the caller links again.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_INPUTGATE_H
#define LLD_OFFLOAD_LLDPLUGIN_INPUTGATE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace offload {

class InputGate {
public:
  /// Puts a named pipe in place of the file \p Path. A thread of the gate's
  /// own calls \p Decide, then gives the pipe the file's bytes if it returned
  /// true, else a line LLD refuses.
  static llvm::Expected<std::unique_ptr<InputGate>>
  create(llvm::StringRef Path, std::function<bool()> Decide);
  ~InputGate();
  InputGate(const InputGate &) = delete;
  InputGate &operator=(const InputGate &) = delete;

  /// For LLD's messages in the link that reads the gate: held back until
  /// the gate opens, then written to errs(); kept back if it stays shut
  /// (they are those of a link that is done again).
  llvm::raw_ostream &messages() { return Messages; }
  /// What a shut gate kept back, once finish() is done.
  std::string heldMessages() const { return Messages.held(); }

  /// Once LLD is done: waits for the decision, stops feeding the pipe if LLD
  /// did not read it, puts the file back, and says whether the gate opened.
  bool finish();

private:
  /// errs(), once the gate opens.
  class HeldMessages : public llvm::raw_ostream {
  public:
    HeldMessages() { SetUnbuffered(); }
    void decide(bool Open);
    std::string held() const {
      std::lock_guard<std::mutex> Guard(Lock);
      return Held;
    }
    bool is_displayed() const override { return llvm::errs().is_displayed(); }
    bool has_colors() const override { return llvm::errs().has_colors(); }

  private:
    void write_impl(const char *Ptr, size_t Size) override;
    uint64_t current_pos() const override { return Pos; }
    mutable std::mutex Lock;
    bool Decided = false, Open = false;
    std::string Held;
    uint64_t Pos = 0;
  };

  InputGate(std::string Path, std::string Bytes)
      : Path(std::move(Path)), Bytes(std::move(Bytes)) {}
  /// The gate's thread: decides, then feeds the pipe until LLD has read it
  /// all or finish() says LLD is done.
  void run(std::function<bool()> Decide);
  /// Writes \p Data to the pipe and waits until it is read; false if
  /// stopped first.
  bool feed(llvm::StringRef Data);

  std::string Path, Bytes;
  int Pipe = -1, Stop = -1;
  bool Opened = false, Finished = false;
  HeldMessages Messages;
  std::thread Thread;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_INPUTGATE_H
