#include "serving/tls_identity.hpp"

#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "common/input_error.hpp"

namespace schedhost::serving {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("self-signed certificate: ") + what + " failed");
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  check(ext != nullptr, "an extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

bool is_ip(const std::string& address) {
  unsigned char buf[16];
  return inet_pton(AF_INET, address.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, address.c_str(), buf) == 1;
}

}  // namespace

TlsIdentity self_signed_identity(const std::string& bind_address) {
  TlsIdentity id;
  id.self_signed = true;
  id.key.reset(EVP_EC_gen("P-256"));
  check(id.key != nullptr, "key generation");
  id.certificate.reset(X509_new());
  X509* cert = id.certificate.get();
  check(X509_set_version(cert, 2) == 1, "version");
  ASN1_INTEGER_set(X509_get_serialNumber(cert), static_cast<long>(std::time(nullptr)));
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 365L * 24 * 3600);
  X509_set_pubkey(cert, id.key.get());
  X509_NAME* name = X509_get_subject_name(cert);
  const std::string cn = "localhost@" + std::to_string(std::time(nullptr));
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  std::string san = "DNS:localhost,IP:127.0.0.1";
  if (!bind_address.empty() && bind_address != "0.0.0.0" && bind_address != "::" &&
      bind_address != "127.0.0.1" && bind_address != "localhost") {
    san += (is_ip(bind_address) ? ",IP:" : ",DNS:") + bind_address;
  }
  add_extension(cert, NID_subject_alt_name, san);
  add_extension(cert, NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_extension(cert, NID_ext_key_usage, "serverAuth");
  check(X509_sign(cert, id.key.get(), EVP_sha256()) > 0, "signing");
  return id;
}

TlsIdentity load_identity(const std::string& cert_file, const std::string& key_file) {
  TlsIdentity id;
  auto open = [](const std::string& file, const char* flag) {
    FILE* f = std::fopen(file.c_str(), "r");
    if (f == nullptr) {
      throw InputError(file + ": cannot read the " + flag + " file: check the path given to " +
                       flag);
    }
    return f;
  };
  FILE* c = open(cert_file, "--tls-cert-file");
  id.certificate.reset(PEM_read_X509(c, nullptr, nullptr, nullptr));
  std::fclose(c);
  if (!id.certificate) {
    throw InputError(cert_file +
                     ": not a PEM certificate: give --tls-cert-file a file that "
                     "starts with -----BEGIN CERTIFICATE-----");
  }
  FILE* k = open(key_file, "--tls-private-key-file");
  id.key.reset(PEM_read_PrivateKey(k, nullptr, nullptr, nullptr));
  std::fclose(k);
  if (!id.key) {
    throw InputError(key_file +
                     ": not a PEM private key (or it is encrypted): give "
                     "--tls-private-key-file an unencrypted PEM key");
  }
  if (X509_check_private_key(id.certificate.get(), id.key.get()) != 1) {
    throw InputError(key_file + ": this key does not belong to the certificate in " + cert_file +
                     ": give the key the certificate was made for");
  }
  return id;
}

}  // namespace schedhost::serving
