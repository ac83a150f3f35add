// Functions for the few OpenSSL features Swift cannot reach directly (macros, x509v3.h).
#ifndef SIGHTSCREEN_COPENSSLSHIM_H
#define SIGHTSCREEN_COPENSSLSHIM_H

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdint.h>

/// Sets the SNI host name on a client SSL (SSL_set_tlsext_host_name is a macro). 1 on success.
int sightscreen_ssl_set_sni(SSL *ssl, const char *name);

/// Requires TLS 1.2 or later and enables partial writes with a moving buffer. 1 on success.
int sightscreen_ssl_ctx_configure(SSL_CTX *ctx);

/// Adds a subjectAltName extension ("DNS:localhost,IP:127.0.0.1") to a certificate. 1 on success.
int sightscreen_x509_add_san(X509 *cert, const char *san);

/// Adds CN=<cn> to a name. 1 on success.
int sightscreen_x509_name_add_cn(X509_NAME *name, const char *cn);

/// Frees memory allocated by OpenSSL (OPENSSL_free is a macro).
void sightscreen_openssl_free(void *pointer);

#endif
