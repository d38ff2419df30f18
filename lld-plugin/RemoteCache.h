//===- lld-plugin/RemoteCache.h - The device-link cache over HTTP -*- C++
//-*-===//
//
// A second tier of the device-link cache on an HTTP server a build farm
// already runs: nginx with WebDAV, bazel-remote (its /ac/ space), a server
// set up for ccache's HTTP storage. Entries are GET and PUT as files, in the
// layouts ccache and Bazel use; nothing runs on the server.
//
// A remote cache can never make a link wrong or fail it: every entry
// carries its key's hash, its size and its content's hash, and one that is
// not whole and its own is a miss (replaced when the cache is writable); a
// server that is down, slow past a timeout, or answers with an error is one
// warning naming it, and the link goes on as without it. Secrets (a bearer
// token, a password, header values) are never printed.
//
// libcurl (HTTP/1.1 keep-alive, TLS, timeouts, proxy variables, ~/.netrc)
// is loaded only when the server is to be asked: linked in, it would cost
// every link its start-up, and a relink whose entries are all in the local
// directory does not ask.
//
//===----------------------------------------------------------------------===//

#ifndef LLD_OFFLOAD_LLDPLUGIN_REMOTECACHE_H
#define LLD_OFFLOAD_LLDPLUGIN_REMOTECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace offload {

/// The environment variables of the remote cache, for builds that cannot add
/// link flags, and for its token, which should not be on a command line.
constexpr const char *RemoteCacheVar = "LLD_OFFLOAD_REMOTE_CACHE";
constexpr const char *RemoteCacheTokenVar = "LLD_OFFLOAD_REMOTE_CACHE_TOKEN";

/// Where entries go on the server.
enum class RemoteLayout {
  /// <url>/ac/<64 hex digits>: bazel-remote's action cache (started with
  /// --disable_http_ac_validation).
  Bazel,
  /// <url>/<key>.
  Flat,
  /// <url>/<first 2 hex digits>/<the rest>, as ccache writes.
  Subdirs,
};

/// What --offload-remote-cache= says, in ccache's remote-storage syntax:
/// url|attr=value|...
struct RemoteCacheConfig {
  /// The server's URL, without user information or a trailing '/'.
  std::string URL;
  /// From user:password@ in the URL: basic authentication.
  std::string User, Password;
  RemoteLayout Layout = RemoteLayout::Bazel;
  bool ReadOnly = false;
  unsigned ConnectTimeoutMs = 100;
  unsigned OperationTimeoutMs = 10000;
  bool KeepAlive = true;
  std::string BearerToken;
  /// header=Name=Value, in order.
  std::vector<std::pair<std::string, std::string>> Headers;
  /// Keeps the entries of projects or branches apart on one server.
  std::string Namespace;

  /// Reads \p Spec; the token comes from bearer-token=, bearer-token-file=,
  /// or LLD_OFFLOAD_REMOTE_CACHE_TOKEN. Errors never quote a secret.
  static llvm::Expected<RemoteCacheConfig> parse(llvm::StringRef Spec);

  /// The server as messages name it: scheme, host, port and path, never
  /// credentials.
  const std::string &shown() const { return URL; }

  /// Where the entry of \p Key is, under URL.
  std::string entryURL(llvm::StringRef Key) const;
};

/// Overwrites with '*', in place, the secrets an argument may hold: in an
/// --offload-remote-cache= value, a URL's password and the values of
/// bearer-token= and header=. Run on the process's own argv once it is
/// copied, it keeps them out of what a crash report prints of the command
/// line (LLVM's "Program arguments") and out of /proc/<pid>/cmdline.
void maskRemoteCacheSecrets(char *Arg);

class RemoteCache {
public:
  /// The server \p Config names. libcurl is loaded when the server is
  /// first asked; one that cannot be used is a warning then, and the link
  /// goes on without the remote tier.
  static std::unique_ptr<RemoteCache> open(RemoteCacheConfig Config);
  ~RemoteCache();

  /// What the server has under each of \p Keys, all asked at once: the
  /// entry's contents, or nothing (a miss, a broken entry, a server that
  /// does not answer).
  std::vector<std::optional<std::string>>
  lookup(llvm::ArrayRef<std::string> Keys);

  /// Starts sending each entry (key, contents) of \p Entries, at once, on a
  /// thread of its own (nothing when read-only, or once the server failed
  /// this link); after uploads started earlier are done.
  void upload(std::vector<std::pair<std::string, std::string>> Entries);

  /// Waits for the uploads (each bounded by the operation timeout).
  void finish();

  /// What this link did with the server.
  struct Totals {
    unsigned Hits = 0, Misses = 0, Uploads = 0, FailedUploads = 0;
    uint64_t BytesDown = 0, BytesUp = 0;
    double WaitMs = 0;
  };
  Totals totals() const;

  /// Messages for --offload-verbose (broken entries, uploads), once each.
  std::vector<std::string> takeNotes();

  const RemoteCacheConfig &config() const;

  struct Impl;

private:
  explicit RemoteCache(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace offload

#endif // LLD_OFFLOAD_LLDPLUGIN_REMOTECACHE_H
