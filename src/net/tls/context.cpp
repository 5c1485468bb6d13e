#include "net/tls/context.h"

#include <openssl/decoder.h>
#include <openssl/err.h>
#include <strings.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/log.h"

namespace net::tls {
namespace {

// Bits of tls-protocols.
constexpr int kTlsV1 = 1, kTlsV1_1 = 2, kTlsV1_2 = 4, kTlsV1_3 = 8;
constexpr int kDefaultProtocols = kTlsV1_2 | kTlsV1_3;
// Session ids this server issues are valid only here.
constexpr char kSessionIdContext[] = "redis";

// -1 for an unknown name (logged as Redis logs it).
int parseProtocols(const std::string& v) {
  if (v.empty()) return kDefaultProtocols;
  int bits = 0;
  std::istringstream in(v);
  for (std::string w; in >> w;) {
    if (strcasecmp(w.c_str(), "tlsv1") == 0) {
      bits |= kTlsV1;
    } else if (strcasecmp(w.c_str(), "tlsv1.1") == 0) {
      bits |= kTlsV1_1;
    } else if (strcasecmp(w.c_str(), "tlsv1.2") == 0) {
      bits |= kTlsV1_2;
    } else if (strcasecmp(w.c_str(), "tlsv1.3") == 0) {
      bits |= kTlsV1_3;
    } else {
      LOG_WARNING(
          "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' "
          "and 'TLSv1.3'.");
      return -1;
    }
  }
  return bits == 0 ? kDefaultProtocols : bits;
}

// The key's pass phrase, handed to OpenSSL while the key file is read.
int passwordCallback(char* buf, int size, int, void* u) {
  const auto* pass = static_cast<const std::string*>(u);
  if (pass == nullptr || size <= 0) return 0;
  int n = static_cast<int>(std::min<size_t>(pass->size(), static_cast<size_t>(size - 1)));
  memcpy(buf, pass->data(), static_cast<size_t>(n));
  buf[n] = '\0';
  return n;
}

bool loadKeyPair(SSL_CTX* ctx, const std::string& cert, const std::string& key,
                 const std::string& pass) {
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) <= 0) {
    LOG_WARNING("Failed to load certificate: %s: %s", cert.c_str(), takeSslError().c_str());
    return false;
  }
  SSL_CTX_set_default_passwd_cb(ctx, passwordCallback);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, const_cast<std::string*>(&pass));
  bool ok = SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) > 0 &&
            SSL_CTX_check_private_key(ctx) > 0;
  SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
  if (!ok) {
    LOG_WARNING("Failed to load private key: %s: %s", key.c_str(), takeSslError().c_str());
    return false;
  }
  return true;
}

bool loadDhParams(SSL_CTX* ctx, const std::string& file) {
  FILE* f = fopen(file.c_str(), "r");
  if (f == nullptr) {
    LOG_WARNING("Failed to load %s: %s", file.c_str(), strerror(errno));
    return false;
  }
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(
      &pkey, "PEM", nullptr, "DH", OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS, nullptr, nullptr);
  bool ok = false;
  if (dctx == nullptr) {
    LOG_WARNING("No decoder for DH params.");
  } else if (!OSSL_DECODER_from_fp(dctx, f)) {
    LOG_WARNING("%s: failed to read DH params.", file.c_str());
  } else if (SSL_CTX_set0_tmp_dh_pkey(ctx, pkey) <= 0) {
    LOG_WARNING("Failed to load DH params file: %s: %s", file.c_str(), takeSslError().c_str());
  } else {
    pkey = nullptr;  // the context owns it now
    ok = true;
  }
  EVP_PKEY_free(pkey);
  OSSL_DECODER_CTX_free(dctx);
  fclose(f);
  return ok;
}

// The CA certificates to verify the peer with, from a file and/or a
// directory (either may be empty, not both); false when OpenSSL refuses them.
bool loadCaLocations(SSL_CTX* ctx, const std::string& file, const std::string& dir) {
  return SSL_CTX_load_verify_locations(ctx, file.empty() ? nullptr : file.c_str(),
                                       dir.empty() ? nullptr : dir.c_str()) > 0;
}

// The settings both of the server's contexts share, as Redis 7.0 sets them.
// The server's context takes both roles (TLS_method): without
// tls-client-cert-file the server's own outgoing links (replication, the
// cluster bus) connect with it.
CtxPtr newContext(const ServerConfig& cfg, int protocols, bool client) {
  CtxPtr ctx(SSL_CTX_new(client ? TLS_client_method() : TLS_method()));
  if (!ctx) {
    LOG_WARNING("Failed to create TLS context: %s", takeSslError().c_str());
    return nullptr;
  }
  SSL_CTX* c = ctx.get();
  SSL_CTX_set_options(
      c, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  if (!(protocols & kTlsV1)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1);
  if (!(protocols & kTlsV1_1)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1_1);
  if (!(protocols & kTlsV1_2)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1_2);
  if (!(protocols & kTlsV1_3)) SSL_CTX_set_options(c, SSL_OP_NO_TLSv1_3);
  // Short writes as the connection layer expects them; a retried write may
  // come from another address holding the same bytes.
  SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                          SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  const std::string& cert = client ? cfg.client_cert_file : cfg.cert_file;
  const std::string& key = client ? cfg.client_key_file : cfg.key_file;
  const std::string& pass = client ? cfg.client_key_file_pass : cfg.key_file_pass;
  if (!loadKeyPair(c, cert, key, pass)) return nullptr;
  if ((!cfg.ca_cert_file.empty() || !cfg.ca_cert_dir.empty()) &&
      !loadCaLocations(c, cfg.ca_cert_file, cfg.ca_cert_dir)) {
    LOG_WARNING("Failed to configure CA certificate(s) file/directory: %s", takeSslError().c_str());
    return nullptr;
  }
  if (!cfg.ciphers.empty() && !SSL_CTX_set_cipher_list(c, cfg.ciphers.c_str())) {
    LOG_WARNING("Failed to configure ciphers: %s", cfg.ciphers.c_str());
    takeSslError();
    return nullptr;
  }
  if (!cfg.ciphersuites.empty() && !SSL_CTX_set_ciphersuites(c, cfg.ciphersuites.c_str())) {
    LOG_WARNING("Failed to configure ciphersuites: %s", cfg.ciphersuites.c_str());
    takeSslError();
    return nullptr;
  }
  return ctx;
}

}  // namespace

std::string takeSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

bool buildServerContexts(const ServerConfig& cfg, ServerContexts* out) {
  ERR_clear_error();
  if (cfg.cert_file.empty()) {
    LOG_WARNING("No tls-cert-file configured!");
    return false;
  }
  if (cfg.key_file.empty()) {
    LOG_WARNING("No tls-key-file configured!");
    return false;
  }
  if ((cfg.auth_clients != AuthClients::kNo || cfg.cluster || cfg.replication) &&
      cfg.ca_cert_file.empty() && cfg.ca_cert_dir.empty()) {
    LOG_WARNING(
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
        "tls-replication or tls-auth-clients are enabled!");
    return false;
  }
  int protocols = parseProtocols(cfg.protocols);
  if (protocols == -1) return false;
  CtxPtr server = newContext(cfg, protocols, false);
  if (!server) return false;
  SSL_CTX* s = server.get();
  SSL_CTX_set_options(s, SSL_OP_SINGLE_DH_USE);
  if (cfg.prefer_server_ciphers) SSL_CTX_set_options(s, SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (cfg.session_caching) {
    SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(s, cfg.session_cache_size);
    SSL_CTX_set_timeout(s, cfg.session_cache_timeout);
    SSL_CTX_set_session_id_context(s, reinterpret_cast<const unsigned char*>(kSessionIdContext),
                                   sizeof(kSessionIdContext) - 1);
  } else {
    // No resumption at all: neither the cache nor stateless tickets.
    SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(s, SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets(s, 0);
  }
  if (!cfg.dh_params_file.empty()) {
    if (!loadDhParams(s, cfg.dh_params_file)) return false;
  } else {
    SSL_CTX_set_dh_auto(s, 1);
  }
  CtxPtr client;
  if (!cfg.client_cert_file.empty()) {
    client = newContext(cfg, protocols, true);
    if (!client) return false;
  } else {
    SSL_CTX_up_ref(s);  // outbound connections present the server's certificate
    client.reset(s);
  }
  out->server = std::move(server);
  out->client = std::move(client);
  return true;
}

bool buildClientContext(const ClientConfig& cfg, CtxPtr* out, std::string* err) {
  ERR_clear_error();
  CtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) {
    *err = "Failed to create SSL_CTX";
    return false;
  }
  SSL_CTX* c = ctx.get();
  SSL_CTX_set_options(c, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION);
  SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_verify(c, cfg.insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  bool ca_ok = !cfg.cacert.empty() || !cfg.cacertdir.empty()
                   ? loadCaLocations(c, cfg.cacert, cfg.cacertdir)
                   : SSL_CTX_set_default_verify_paths(c) > 0;
  if (!ca_ok) {
    *err = "Invalid CA Certificate File/Directory";
    ERR_clear_error();
    return false;
  }
  // As redis-cli 7.0: a certificate is used only with its key.
  if (!cfg.cert.empty() && !cfg.key.empty()) {
    if (SSL_CTX_use_certificate_chain_file(c, cfg.cert.c_str()) <= 0) {
      *err = "Invalid client certificate";
      ERR_clear_error();
      return false;
    }
    if (SSL_CTX_use_PrivateKey_file(c, cfg.key.c_str(), SSL_FILETYPE_PEM) <= 0 ||
        SSL_CTX_check_private_key(c) <= 0) {
      *err = "Invalid private key";
      ERR_clear_error();
      return false;
    }
  }
  if (!cfg.ciphers.empty() && !SSL_CTX_set_cipher_list(c, cfg.ciphers.c_str())) {
    *err = "Error while configuring ciphers";
    ERR_clear_error();
    return false;
  }
  if (!cfg.ciphersuites.empty() && !SSL_CTX_set_ciphersuites(c, cfg.ciphersuites.c_str())) {
    *err = "Error while setting cypher suites";
    ERR_clear_error();
    return false;
  }
  *out = std::move(ctx);
  return true;
}

}  // namespace net::tls
