//===- lld-plugin/RemoteCache.cpp - The device-link cache over HTTP -------===//

#include "lld-plugin/RemoteCache.h"

#include "lld-plugin/DeviceLinkCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TimeProfiler.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

using namespace llvm;

namespace offload {

static Error configError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "--offload-remote-cache: " + Msg);
}

static Expected<unsigned> milliseconds(StringRef Name, StringRef Value) {
  unsigned Ms = 0;
  if (Value.getAsInteger(10, Ms) || Ms == 0)
    return configError(Name + "= takes a number of milliseconds, not '" +
                       Value + "'");
  return Ms;
}

static Expected<bool> boolean(StringRef Name, StringRef Value) {
  if (Value == "true")
    return true;
  if (Value == "false")
    return false;
  return configError(Name + "= takes true or false, not '" + Value + "'");
}

Expected<RemoteCacheConfig> RemoteCacheConfig::parse(StringRef Spec) {
  RemoteCacheConfig C;
  SmallVector<StringRef, 8> Parts;
  Spec.split(Parts, '|');
  StringRef URL = Parts.front();
  size_t SchemeEnd = URL.find("://");
  StringRef Scheme =
      SchemeEnd == StringRef::npos ? "" : URL.take_front(SchemeEnd);
  if (Scheme != "http" && Scheme != "https")
    return configError("the cache is an http:// or https:// URL");
  StringRef Rest = URL.drop_front(SchemeEnd + 3);
  size_t HostEnd = Rest.find('/');
  StringRef Authority = Rest.take_front(HostEnd);
  StringRef Path = HostEnd == StringRef::npos ? "" : Rest.drop_front(HostEnd);
  // user:password@host: basic authentication, never shown.
  size_t At = Authority.rfind('@');
  if (At != StringRef::npos) {
    auto [User, Password] = Authority.take_front(At).split(':');
    C.User = User.str();
    C.Password = Password.str();
    Authority = Authority.drop_front(At + 1);
  }
  if (Authority.empty())
    return configError("the URL names no server");
  C.URL = (Scheme + "://" + Authority + Path.rtrim('/')).str();
  for (StringRef Attr : ArrayRef(Parts).drop_front()) {
    auto [Name, Value] = Attr.split('=');
    if (Name == "layout") {
      if (Value == "bazel")
        C.Layout = RemoteLayout::Bazel;
      else if (Value == "flat")
        C.Layout = RemoteLayout::Flat;
      else if (Value == "subdirs")
        C.Layout = RemoteLayout::Subdirs;
      else
        return configError("layout= is bazel, flat or subdirs, not '" + Value +
                           "'");
    } else if (Name == "read-only") {
      Expected<bool> B = Value.empty() ? true : boolean(Name, Value);
      if (!B)
        return B.takeError();
      C.ReadOnly = *B;
    } else if (Name == "connect-timeout" || Name == "operation-timeout") {
      Expected<unsigned> Ms = milliseconds(Name, Value);
      if (!Ms)
        return Ms.takeError();
      (Name == "connect-timeout" ? C.ConnectTimeoutMs : C.OperationTimeoutMs) =
          *Ms;
    } else if (Name == "keep-alive") {
      Expected<bool> B = boolean(Name, Value);
      if (!B)
        return B.takeError();
      C.KeepAlive = *B;
    } else if (Name == "bearer-token") {
      C.BearerToken = Value.str();
    } else if (Name == "bearer-token-file") {
      ErrorOr<std::unique_ptr<MemoryBuffer>> Token =
          MemoryBuffer::getFile(Value);
      if (!Token)
        return configError("cannot read the bearer-token-file '" + Value +
                           "': " + Token.getError().message());
      C.BearerToken = (*Token)->getBuffer().trim().str();
    } else if (Name == "header") {
      auto [Header, HeaderValue] = Value.split('=');
      if (Header.empty() || !Value.contains('='))
        return configError("header= takes Name=Value");
      C.Headers.emplace_back(Header.str(), HeaderValue.str());
    } else if (Name == "namespace") {
      C.Namespace = Value.str();
    } else {
      // Not its value: it may be a secret given to the wrong name.
      return configError("unknown attribute '" + Name + "'");
    }
  }
  if (C.BearerToken.empty())
    if (const char *Token = getenv(RemoteCacheTokenVar))
      C.BearerToken = StringRef(Token).trim().str();
  return C;
}

void maskRemoteCacheSecrets(char *Arg) {
  StringRef A(Arg);
  size_t Value = A.find("offload-remote-cache=");
  if (Value == StringRef::npos)
    return;
  Value += strlen("offload-remote-cache=");
  auto Mask = [&](size_t Begin, size_t End) {
    for (size_t I = Begin; I < End; ++I)
      Arg[I] = '*';
  };
  StringRef Spec = A.drop_front(Value);
  // The URL's user:password@.
  size_t URLEnd = Spec.find('|');
  StringRef URL = Spec.take_front(URLEnd);
  size_t Scheme = URL.find("://");
  if (Scheme != StringRef::npos) {
    StringRef Authority = URL.drop_front(Scheme + 3);
    Authority = Authority.take_front(Authority.find('/'));
    size_t At = Authority.rfind('@');
    size_t Colon = Authority.find(':');
    if (At != StringRef::npos && Colon < At) {
      size_t Begin = Value + Scheme + 3;
      Mask(Begin + Colon + 1, Begin + At);
    }
  }
  // bearer-token=<secret>, header=<Name>=<secret>.
  size_t At = Value;
  while (At < A.size()) {
    size_t End = A.find('|', At);
    if (End == StringRef::npos)
      End = A.size();
    StringRef Attr = A.slice(At, End);
    if (Attr.starts_with("bearer-token="))
      Mask(At + strlen("bearer-token="), End);
    else if (Attr.starts_with("header=")) {
      size_t Eq = Attr.find('=', strlen("header="));
      if (Eq != StringRef::npos)
        Mask(At + Eq + 1, End);
    }
    At = End + 1;
  }
}

/// What the server's name of an entry is made of: the key and the
/// namespace, as 64 hex digits (what bazel-remote takes).
static std::string remoteName(StringRef Namespace, StringRef Key) {
  CacheKeyHasher H;
  H.add("namespace", Namespace);
  H.add("key", Key);
  return H.finish();
}

std::string RemoteCacheConfig::entryURL(StringRef Key) const {
  std::string Name = remoteName(Namespace, Key);
  switch (Layout) {
  case RemoteLayout::Bazel:
    return URL + "/ac/" + Name;
  case RemoteLayout::Flat:
    return URL + "/" + Name;
  case RemoteLayout::Subdirs:
    return URL + "/" + Name.substr(0, 2) + "/" + Name.substr(2);
  }
  return URL;
}

/// An entry on the server: magic, the hash of its name, the size and hash of
/// its contents, then the contents.
static constexpr StringLiteral RemoteMagic = "LLDOFFR1";
static constexpr size_t RemoteHeaderSize = 8 + 32 + 8 + 32;

static std::string wrapEntry(StringRef Name, StringRef Data) {
  std::string Entry(RemoteMagic);
  Entry += fromHex(Name);
  char Size[8];
  support::endian::write64le(Size, Data.size());
  Entry.append(Size, 8);
  Entry += fromHex(contentHash(Data));
  Entry += Data;
  return Entry;
}

/// The contents of \p Entry, if it is whole and the entry of \p Name.
static std::optional<StringRef> unwrapEntry(StringRef Name, StringRef Entry) {
  if (Entry.size() < RemoteHeaderSize || !Entry.starts_with(RemoteMagic) ||
      Entry.substr(8, 32) != fromHex(Name))
    return std::nullopt;
  StringRef Data = Entry.drop_front(RemoteHeaderSize);
  if (support::endian::read64le(Entry.data() + 40) != Data.size() ||
      Entry.substr(48, 32) != fromHex(contentHash(Data)))
    return std::nullopt;
  return Data;
}

namespace {
/// The functions of libcurl this uses, loaded at run time.
struct Curl {
  void *Handle = nullptr;
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_perform) multi_perform;
  decltype(&curl_multi_poll) multi_poll;
  decltype(&curl_multi_info_read) multi_info_read;
  decltype(&curl_multi_cleanup) multi_cleanup;

  static Expected<Curl> load() {
    Curl C;
    C.Handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!C.Handle)
      return createStringError(inconvertibleErrorCode(),
                               "cannot load libcurl.so.4 (Debian's libcurl4)");
    bool Missing = false;
    auto Get = [&](auto &F, const char *Name) {
      F = reinterpret_cast<std::remove_reference_t<decltype(F)>>(
          dlsym(C.Handle, Name));
      Missing |= !F;
    };
    Get(C.global_init, "curl_global_init");
    Get(C.easy_init, "curl_easy_init");
    Get(C.easy_setopt, "curl_easy_setopt");
    Get(C.easy_getinfo, "curl_easy_getinfo");
    Get(C.easy_cleanup, "curl_easy_cleanup");
    Get(C.easy_strerror, "curl_easy_strerror");
    Get(C.slist_append, "curl_slist_append");
    Get(C.slist_free_all, "curl_slist_free_all");
    Get(C.multi_init, "curl_multi_init");
    Get(C.multi_add_handle, "curl_multi_add_handle");
    Get(C.multi_remove_handle, "curl_multi_remove_handle");
    Get(C.multi_perform, "curl_multi_perform");
    Get(C.multi_poll, "curl_multi_poll");
    Get(C.multi_info_read, "curl_multi_info_read");
    Get(C.multi_cleanup, "curl_multi_cleanup");
    if (Missing)
      return createStringError(inconvertibleErrorCode(),
                               "libcurl.so.4 is too old (needs 7.66)");
    if (C.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      return createStringError(inconvertibleErrorCode(),
                               "libcurl cannot start");
    return C;
  }
};

/// One GET or PUT.
struct Transfer {
  std::string URL;
  std::string Name; // of the entry
  std::string Body; // sent (PUT) or received (GET)
  size_t Sent = 0;
  bool Put = false;
  CURL *Easy = nullptr;
  decltype(&curl_easy_getinfo) GetInfo = nullptr;
  CURLcode Result = CURLE_OK;
  long Status = 0;
};

/// Sizes up to this are made room for at once, as the server announces.
constexpr curl_off_t MaxReserved = curl_off_t(256) << 20;

size_t receive(char *Data, size_t Size, size_t N, void *P) {
  Transfer &T = *static_cast<Transfer *>(P);
  // Room for the whole body at once: growing it as it comes copies it
  // twice over, into memory first touched each time (a page fault per 4
  // KiB: most of the time of a GET from a server nearby).
  if (T.Body.empty()) {
    curl_off_t Length = -1;
    if (T.GetInfo(T.Easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &Length) ==
            CURLE_OK &&
        Length > 0)
      T.Body.reserve(std::min(Length, MaxReserved));
  }
  T.Body.append(Data, Size * N);
  return Size * N;
}

size_t send(char *Data, size_t Size, size_t N, void *P) {
  Transfer &T = *static_cast<Transfer *>(P);
  size_t Count = std::min(Size * N, T.Body.size() - T.Sent);
  memcpy(Data, T.Body.data() + T.Sent, Count);
  T.Sent += Count;
  return Count;
}
} // namespace

struct RemoteCache::Impl {
  RemoteCacheConfig Config;
  /// Whether libcurl is loaded (and C usable), once loaded() tried.
  std::optional<bool> Loaded;
  Curl C;
  curl_slist *Headers = nullptr;
  std::mutex Lock; // what follows, shared with the upload thread
  Totals Sum;
  std::vector<std::string> Notes;
  /// Said once: the server failed this link, and is not asked again.
  std::atomic<bool> Failed{false};
  std::thread Uploader;

  /// Loads libcurl the first time the server is to be asked (3-5 ms and 30
  /// libraries: a link whose entries are all local never pays it); false,
  /// after a warning and for the rest of the link, if it cannot be used.
  /// On the link's thread, before any upload starts.
  bool loaded();
  /// Runs \p Transfers at once; each ends with its result and status.
  void perform(std::vector<Transfer> &Transfers);
  /// A warning naming the server and what went wrong, once in a link; the
  /// server is not asked again.
  void fail(const Transfer &T);
};

void RemoteCache::Impl::fail(const Transfer &T) {
  if (Failed.exchange(true))
    return;
  std::string What = T.Result != CURLE_OK
                         ? std::string(C.easy_strerror(T.Result))
                         : "HTTP " + std::to_string(T.Status);
  errs() << "ld.lld-offload: warning: remote cache " << Config.shown() << ": "
         << (T.Put ? "cannot store an entry" : "cannot look up") << ": " << What
         << "; linking on without it\n";
}

void RemoteCache::Impl::perform(std::vector<Transfer> &Transfers) {
  auto Start = std::chrono::steady_clock::now();
  CURLM *Multi = C.multi_init();
  for (Transfer &T : Transfers) {
    CURL *E = T.Easy = C.easy_init();
    T.GetInfo = C.easy_getinfo;
    C.easy_setopt(E, CURLOPT_URL, T.URL.c_str());
    C.easy_setopt(E, CURLOPT_NOSIGNAL, 1L);
    C.easy_setopt(E, CURLOPT_CONNECTTIMEOUT_MS, long(Config.ConnectTimeoutMs));
    C.easy_setopt(E, CURLOPT_TIMEOUT_MS, long(Config.OperationTimeoutMs));
    C.easy_setopt(E, CURLOPT_FOLLOWLOCATION, 1L);
    C.easy_setopt(E, CURLOPT_MAXREDIRS, 5L);
    C.easy_setopt(E, CURLOPT_FORBID_REUSE, Config.KeepAlive ? 0L : 1L);
    C.easy_setopt(E, CURLOPT_NETRC, long(CURL_NETRC_OPTIONAL));
    if (!Config.User.empty()) {
      C.easy_setopt(E, CURLOPT_USERNAME, Config.User.c_str());
      C.easy_setopt(E, CURLOPT_PASSWORD, Config.Password.c_str());
    }
    if (Headers)
      C.easy_setopt(E, CURLOPT_HTTPHEADER, Headers);
    if (T.Put) {
      C.easy_setopt(E, CURLOPT_UPLOAD, 1L);
      C.easy_setopt(E, CURLOPT_READFUNCTION, send);
      C.easy_setopt(E, CURLOPT_READDATA, &T);
      C.easy_setopt(E, CURLOPT_INFILESIZE_LARGE, curl_off_t(T.Body.size()));
    }
    // A PUT's answer is read too, and dropped.
    C.easy_setopt(E, CURLOPT_WRITEFUNCTION, receive);
    C.easy_setopt(E, CURLOPT_WRITEDATA, &T);
    C.easy_setopt(E, CURLOPT_PRIVATE, &T);
    C.multi_add_handle(Multi, E);
  }
  int Running = 1;
  while (Running) {
    if (C.multi_perform(Multi, &Running) != CURLM_OK)
      break;
    if (Running)
      C.multi_poll(Multi, nullptr, 0, 1000, nullptr);
  }
  int Left = 0;
  while (CURLMsg *M = C.multi_info_read(Multi, &Left))
    if (M->msg == CURLMSG_DONE) {
      Transfer *T = nullptr;
      C.easy_getinfo(M->easy_handle, CURLINFO_PRIVATE, &T);
      T->Result = M->data.result;
      C.easy_getinfo(M->easy_handle, CURLINFO_RESPONSE_CODE, &T->Status);
    }
  for (Transfer &T : Transfers) {
    C.multi_remove_handle(Multi, T.Easy);
    C.easy_cleanup(T.Easy);
    T.Easy = nullptr;
  }
  C.multi_cleanup(Multi);
  std::lock_guard<std::mutex> Guard(Lock);
  Sum.WaitMs += std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
}

std::unique_ptr<RemoteCache> RemoteCache::open(RemoteCacheConfig Config) {
  auto I = std::make_unique<Impl>();
  I->Config = std::move(Config);
  return std::unique_ptr<RemoteCache>(new RemoteCache(std::move(I)));
}

bool RemoteCache::Impl::loaded() {
  if (Loaded)
    return *Loaded;
  Expected<Curl> Got = [] {
    TimeTraceScope Scope("Offload: load libcurl");
    return Curl::load();
  }();
  Loaded = bool(Got);
  if (!Got) {
    Failed = true;
    errs() << "ld.lld-offload: warning: cannot use the remote cache "
           << Config.shown() << ": " << toString(Got.takeError())
           << "; linking without it\n";
    return false;
  }
  C = *Got;
  // No "Expect: 100-continue" before a PUT's body: a round trip less, and
  // servers that do not answer it are not waited for.
  Headers = C.slist_append(Headers, "Expect:");
  if (!Config.BearerToken.empty())
    Headers = C.slist_append(
        Headers, ("Authorization: Bearer " + Config.BearerToken).c_str());
  for (const auto &[Name, Value] : Config.Headers)
    Headers = C.slist_append(Headers, (Name + ": " + Value).c_str());
  return true;
}

RemoteCache::RemoteCache(std::unique_ptr<Impl> I) : I(std::move(I)) {}

RemoteCache::~RemoteCache() {
  finish();
  if (I->Headers)
    I->C.slist_free_all(I->Headers);
}

const RemoteCacheConfig &RemoteCache::config() const { return I->Config; }

std::vector<std::optional<std::string>>
RemoteCache::lookup(ArrayRef<std::string> Keys) {
  std::vector<std::optional<std::string>> Found(Keys.size());
  if (I->Failed || Keys.empty() || !I->loaded())
    return Found;
  TimeTraceScope Scope("Offload: remote cache lookup");
  std::vector<Transfer> Gets(Keys.size());
  for (auto [N, Key] : enumerate(Keys)) {
    Gets[N].URL = I->Config.entryURL(Key);
    Gets[N].Name = remoteName(I->Config.Namespace, Key);
  }
  I->perform(Gets);
  for (auto [N, T] : enumerate(Gets)) {
    if (T.Result == CURLE_OK && T.Status == 404) {
      ++I->Sum.Misses;
      continue;
    }
    if (T.Result != CURLE_OK || T.Status != 200) {
      I->fail(T);
      ++I->Sum.Misses;
      continue;
    }
    I->Sum.BytesDown += T.Body.size();
    std::optional<StringRef> Data = unwrapEntry(T.Name, T.Body);
    if (!Data) {
      ++I->Sum.Misses;
      I->Notes.push_back("remote cache: the entry of key " +
                         shortKey(Keys[N]).str() +
                         " is not whole or not this key's; a miss");
      continue;
    }
    ++I->Sum.Hits;
    // The contents are the body after its header, erased in place: no
    // second buffer.
    T.Body.erase(0, RemoteHeaderSize);
    Found[N] = std::move(T.Body);
  }
  return Found;
}

void RemoteCache::upload(
    std::vector<std::pair<std::string, std::string>> Entries) {
  if (I->Config.ReadOnly || I->Failed || Entries.empty() || !I->loaded())
    return;
  finish();
  std::vector<Transfer> Puts;
  for (auto &[Key, Data] : Entries) {
    Transfer T;
    T.Put = true;
    T.URL = I->Config.entryURL(Key);
    T.Name = remoteName(I->Config.Namespace, Key);
    T.Body = wrapEntry(T.Name, Data);
    Puts.push_back(std::move(T));
  }
  // Beside the host link: a cold link does not wait for the server.
  bool Traced = timeTraceProfilerEnabled();
  I->Uploader = std::thread([I = I.get(), Puts = std::move(Puts),
                             Traced]() mutable {
    // A thread's time trace is its own, merged into the link's at its end.
    if (Traced)
      timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0,
                                  "ld.lld-offload");
    {
      TimeTraceScope Scope("Offload: remote cache upload");
      I->perform(Puts);
    }
    if (Traced)
      timeTraceProfilerFinishThread();
    for (const Transfer &T : Puts) {
      bool Stored = T.Result == CURLE_OK && T.Status >= 200 && T.Status < 300;
      {
        std::lock_guard<std::mutex> Guard(I->Lock);
        ++(Stored ? I->Sum.Uploads : I->Sum.FailedUploads);
        if (Stored)
          I->Sum.BytesUp += T.Body.size();
      }
      if (!Stored)
        I->fail(T);
    }
  });
}

void RemoteCache::finish() {
  if (I->Uploader.joinable())
    I->Uploader.join();
}

RemoteCache::Totals RemoteCache::totals() const {
  std::lock_guard<std::mutex> Guard(I->Lock);
  return I->Sum;
}

std::vector<std::string> RemoteCache::takeNotes() {
  std::lock_guard<std::mutex> Guard(I->Lock);
  return std::move(I->Notes);
}

} // namespace offload
