// The secure port's TLS identity: the certificate and key files given (--tls-cert-file,
// --tls-private-key-file), or, without them, a self-signed certificate made in memory at start,
// as kube-scheduler makes one (valid for localhost, 127.0.0.1 and the bind address).
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace schedhost::serving {

struct TlsIdentity {
  struct FreeX509 {
    void operator()(X509* x) const { X509_free(x); }
  };
  struct FreeKey {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  };
  std::unique_ptr<X509, FreeX509> certificate;
  std::unique_ptr<EVP_PKEY, FreeKey> key;
  bool self_signed = false;
};

// A new P-256 key and a certificate for it, signed by itself, valid for a year from an hour ago.
TlsIdentity self_signed_identity(const std::string& bind_address);
// PEM files; throws InputError naming the file and what is wrong with it.
TlsIdentity load_identity(const std::string& cert_file, const std::string& key_file);

}  // namespace schedhost::serving
