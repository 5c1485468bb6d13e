// The tls type's settings table and context set-up: Redis 7.0's names,
// defaults and validation texts, and the refusals that need no files.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "net/registry.h"
#include "net/tls/context.h"
#include "net/tls/settings.h"

namespace net::tls {
namespace {

const SettingSpec* find(const std::string& name) {
  for (const SettingSpec& s : tlsSettings()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

TEST(TlsSettings, EveryRedisDirectiveWithItsDefault) {
  const std::pair<const char*, const char*> kRedis[] = {
      {"tls-port", "0"},
      {"tls-cert-file", ""},
      {"tls-key-file", ""},
      {"tls-key-file-pass", ""},
      {"tls-client-cert-file", ""},
      {"tls-client-key-file", ""},
      {"tls-client-key-file-pass", ""},
      {"tls-dh-params-file", ""},
      {"tls-ca-cert-file", ""},
      {"tls-ca-cert-dir", ""},
      {"tls-auth-clients", "yes"},
      {"tls-replication", "no"},
      {"tls-cluster", "no"},
      {"tls-protocols", ""},
      {"tls-ciphers", ""},
      {"tls-ciphersuites", ""},
      {"tls-prefer-server-ciphers", "no"},
      {"tls-session-caching", "yes"},
      {"tls-session-cache-size", "20480"},
      {"tls-session-cache-timeout", "300"},
  };
  for (const auto& [name, def] : kRedis) {
    const SettingSpec* s = find(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_STREQ(s->default_value, def) << name;
    EXPECT_TRUE(s->is_mutable) << name;
    EXPECT_NE(net::findSetting(name), nullptr) << name << " reaches the server's options table";
  }
  EXPECT_TRUE(find("tls-port")->reopens_listeners);
  EXPECT_TRUE(find("tls-cert-file")->reapply_unchanged);
  EXPECT_TRUE(find("tls-key-file-pass")->sensitive);
  EXPECT_TRUE(find("tls-client-key-file-pass")->sensitive);
  EXPECT_FALSE(find("tls-ciphers")->sensitive);
}

std::string parse(const char* name, const std::string& value, bool* ok) {
  std::string canonical, err;
  *ok = find(name)->parse({value}, &canonical, &err);
  return *ok ? canonical : err;
}

TEST(TlsSettings, ValidationAsRedisWordsIt) {
  bool ok = false;
  EXPECT_EQ(parse("tls-port", "70000", &ok), "argument must be between 0 and 65535 inclusive");
  EXPECT_FALSE(ok);
  EXPECT_EQ(parse("tls-port", "x", &ok), "argument couldn't be parsed into an integer");
  EXPECT_EQ(parse("tls-auth-clients", "OPTIONAL", &ok), "optional");
  EXPECT_TRUE(ok);
  EXPECT_EQ(parse("tls-auth-clients", "maybe", &ok),
            "argument(s) must be one of the following: no, yes, optional");
  EXPECT_EQ(parse("tls-replication", "YES", &ok), "yes");
  EXPECT_EQ(parse("tls-cluster", "1", &ok), "argument must be 'yes' or 'no'");
  EXPECT_EQ(parse("tls-session-cache-size", "-1", &ok),
            "argument must be between 0 and 2147483647 inclusive");
  EXPECT_EQ(parse("tls-protocols", "TLSv1.2 TLSv1.3", &ok), "TLSv1.2 TLSv1.3");
  EXPECT_TRUE(ok);
}

TEST(TlsSettings, ConfigReadBackAndWhenTlsIsInUse) {
  SettingLookup get = [](const std::string& name) -> std::string {
    if (name == "tls-replication") return "yes";
    if (name == "tls-auth-clients") return "optional";
    if (name == "tls-session-cache-size") return "100";
    return "";
  };
  ServerConfig c = ServerConfig::from(get);
  EXPECT_TRUE(c.inUse());
  EXPECT_EQ(c.auth_clients, AuthClients::kOptional);
  EXPECT_EQ(c.session_cache_size, 100);
  EXPECT_TRUE(c.session_caching);
  EXPECT_FALSE(ServerConfig::from([](const std::string&) { return std::string(); }).inUse());
}

TEST(TlsContext, ServerRefusesMissingCertificateKeyOrCa) {
  ServerConfig c;
  ServerContexts out;
  EXPECT_FALSE(buildServerContexts(c, &out));  // no tls-cert-file
  c.cert_file = "/nonexistent/cert.pem";
  EXPECT_FALSE(buildServerContexts(c, &out));  // no tls-key-file
  c.key_file = "/nonexistent/key.pem";
  EXPECT_FALSE(buildServerContexts(c, &out));  // auth-clients yes without a CA
  c.auth_clients = AuthClients::kNo;
  c.protocols = "TLSv1.2 SSLv3";
  EXPECT_FALSE(buildServerContexts(c, &out));  // a protocol Redis does not know
  c.protocols = "";
  EXPECT_FALSE(buildServerContexts(c, &out));  // the files do not exist
  EXPECT_EQ(out.server, nullptr);
}

TEST(TlsContext, ClientErrorsAreRedisClis) {
  CtxPtr ctx;
  std::string err;
  ClientConfig c;
  c.cacert = "/nonexistent/ca.pem";
  EXPECT_FALSE(buildClientContext(c, &ctx, &err));
  EXPECT_EQ(err, "Invalid CA Certificate File/Directory");
  c = ClientConfig();
  c.insecure = true;
  c.ciphers = "NOT-A-CIPHER";
  EXPECT_FALSE(buildClientContext(c, &ctx, &err));
  EXPECT_EQ(err, "Error while configuring ciphers");
  c.ciphers = "";
  c.ciphersuites = "NOT-A-SUITE";
  EXPECT_FALSE(buildClientContext(c, &ctx, &err));
  EXPECT_EQ(err, "Error while setting cypher suites");
  c.ciphersuites = "";
  c.cert = "/nonexistent/cert.pem";  // without --key it is not used, as in redis-cli
  EXPECT_TRUE(buildClientContext(c, &ctx, &err)) << err;
  c.key = "/nonexistent/key.pem";
  EXPECT_FALSE(buildClientContext(c, &ctx, &err));
  EXPECT_EQ(err, "Invalid client certificate");
}

}  // namespace
}  // namespace net::tls
