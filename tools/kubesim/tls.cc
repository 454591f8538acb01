#include "tools/kubesim/tls.h"

#include <memory>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace fleetwave::kubesim {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Free>;
using CertPtr = std::unique_ptr<X509, Free>;
using BioPtr = std::unique_ptr<BIO, Free>;

std::string LastError() {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  return buf;
}

bool AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

CertPtr MakeCert(EVP_PKEY* key, const char* cn, long serial, long days, X509* issuer,
                 EVP_PKEY* issuer_key, bool ca) {
  CertPtr cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("kubesim"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn),
                             -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (ca) {
    ok = ok && AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    ok = ok &&
         AddExt(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
    ok = ok && AddExt(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok = ok && AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    ok = ok &&
         AddExt(cert.get(), signer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    ok = ok && AddExt(cert.get(), signer, NID_ext_key_usage, "serverAuth");
    ok = ok && AddExt(cert.get(), signer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
    ok = ok && AddExt(cert.get(), signer, NID_subject_key_identifier, "hash");
    ok = ok && AddExt(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  if (!ok || X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) return nullptr;
  return cert;
}

std::string Pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string Pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

}  // namespace

std::optional<TlsMaterial> GenerateTls(std::string* error) {
  // P-256 keys: generated in milliseconds and accepted by Go and Python TLS stacks.
  KeyPtr ca_key(EVP_EC_gen("P-256"));
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!ca_key || !key) {
    *error = "key generation failed: " + LastError();
    return std::nullopt;
  }
  CertPtr ca = MakeCert(ca_key.get(), "kubesim-ca", 1, 3650, nullptr, ca_key.get(), true);
  if (!ca) {
    *error = "CA certificate failed: " + LastError();
    return std::nullopt;
  }
  CertPtr cert = MakeCert(key.get(), "kubesim", 2, 365, ca.get(), ca_key.get(), false);
  if (!cert) {
    *error = "serving certificate failed: " + LastError();
    return std::nullopt;
  }
  return TlsMaterial{Pem(ca.get()), Pem(cert.get()), Pem(key.get())};
}

}  // namespace fleetwave::kubesim
