/* sign.h - Authenticode signatures of a PE image (Secure Boot): writing
 * one with a key and certificate, and reading the ones a file has.
 * OpenSSL's libcrypto does the hashing, the ASN.1 and the PKCS#7. */
#ifndef SIGN_H
#define SIGN_H

#include <stdio.h>

#include "util.h"

/* The environment variable that holds an encrypted --sign-key's
 * passphrase (never asked for on a terminal). */
#define SIGN_PASSPHRASE_ENV "BZPACK_SIGN_PASSPHRASE"

/* Append a certificate table with one PKCS#7 SignedData over the image's
 * Authenticode SHA-256 hash, signed with key_path (PEM, RSA or other,
 * encrypted or not) for cert_path (PEM or DER X.509), as sbsign does.
 * No signing time: the same inputs give the same bytes.  image must be
 * unsigned; *culprit is set to the file a failure is about. */
int sign_image(struct buffer *image, const char *key_path, const char *cert_path, const char **culprit,
	       struct error *err);

/* How many signatures (WIN_CERTIFICATE entries) the file carries: 0 for
 * none or no PE. */
unsigned sign_count(const struct buffer *file);

/* 1 if the file has a signature whose image hash matches, else 0. */
int sign_any_valid(const struct buffer *file);

/* bzpack --info: each signature's signer (subject, issuer), digest, and
 * whether the image hash and the signature over it hold. */
void sign_print(FILE *out, const struct buffer *file);

#endif
