/* sign.c - Authenticode signatures (Microsoft's "Windows Authenticode
 * Portable Executable Signature Format" and PE/COFF's certificate table);
 * see sign.h.
 *
 * The signed thing is the image hash: the PE headers without their
 * CheckSum and certificate-table entry, then each section's file data in
 * file order, then any data after them except the certificate table.
 * The signature is a PKCS#7 SignedData whose content is an
 * SpcIndirectDataContent naming that hash, and whose one signed
 * attribute besides the content type is the digest of that content's DER
 * value (its bytes less their own tag and length: Authenticode's rule).
 * It goes into a WIN_CERTIFICATE at the end of the file, which the data
 * directory's security entry (a file offset, not an RVA) points to.
 * sbsign (sbsigntool) and UEFI firmware (EDK2's DxeImageVerificationLib)
 * do the same; the structures here are written from the specification,
 * with OpenSSL's ASN.1 templates and types.
 */
#include "sign.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/asn1t.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include "pe.h"

#define OID_SPC_INDIRECT_DATA  "1.3.6.1.4.1.311.2.1.4"
#define OID_SPC_PE_IMAGE_DATA  "1.3.6.1.4.1.311.2.1.15"
#define WIN_CERT_HEADER        8
#define WIN_CERT_REVISION_2_0  0x0200
#define WIN_CERT_PKCS_SIGNED   0x0002
#define CERT_TABLE_ALIGN       8
#define MAX_SECTIONS_HASHED    96      /* what loaders accept at most */
#define OBSOLETE_FILE_NAME     "<<<Obsolete>>>"  /* what every signer puts in SpcPeImageData.file */
#define NAME_MAX_TEXT          256

/* ---- the Authenticode structures -------------------------------------- */

/* SpcIndirectDataContent ::= SEQUENCE {
 *     data SpcAttributeTypeAndOptionalValue ::= SEQUENCE { type OID, value ANY OPTIONAL },
 *     messageDigest DigestInfo ::= SEQUENCE { digestAlgorithm AlgorithmIdentifier,
 *                                             digest OCTET STRING } }
 * The first member has AlgorithmIdentifier's shape (an OID, then
 * anything or nothing) and DigestInfo is PKCS#1's, so OpenSSL's X509_ALGOR
 * and X509_SIG encode them. */
typedef struct {
	X509_ALGOR *data;
	X509_SIG *message_digest;
} BZ_SPC_INDIRECT_DATA;

ASN1_SEQUENCE(BZ_SPC_INDIRECT_DATA) = {
	ASN1_SIMPLE(BZ_SPC_INDIRECT_DATA, data, X509_ALGOR),
	ASN1_SIMPLE(BZ_SPC_INDIRECT_DATA, message_digest, X509_SIG),
} ASN1_SEQUENCE_END(BZ_SPC_INDIRECT_DATA)

DECLARE_ASN1_FUNCTIONS(BZ_SPC_INDIRECT_DATA)
IMPLEMENT_ASN1_FUNCTIONS(BZ_SPC_INDIRECT_DATA)

/* SpcPeImageData ::= SEQUENCE { flags BIT STRING, file [0] EXPLICIT SpcLink },
 * SpcLink ::= CHOICE { ..., file [2] EXPLICIT SpcString },
 * SpcString ::= CHOICE { unicode [0] IMPLICIT BMPString, ... }: every
 * signer writes no flags and the unicode file name "<<<Obsolete>>>", so
 * its DER is a constant: this head, then the name in UTF-16BE. */
#define OBSOLETE_UTF16_SIZE (2 * (sizeof(OBSOLETE_FILE_NAME) - 1))
static const uint8_t pe_image_data_head[] = {
	0x30, 9 + OBSOLETE_UTF16_SIZE,  /* SEQUENCE */
	0x03, 0x01, 0x00,               /* flags: an empty BIT STRING */
	0xa0, 4 + OBSOLETE_UTF16_SIZE,  /* [0] file: SpcLink */
	0xa2, 2 + OBSOLETE_UTF16_SIZE,  /* [2] file: SpcString */
	0x80, OBSOLETE_UTF16_SIZE,      /* [0] unicode */
};

/* ---- the image hash ----------------------------------------------------- */

static int openssl_fail(struct error *err, const char *what)
{
	unsigned long e = ERR_get_error();
	char reason[160];

	ERR_error_string_n(e, reason, sizeof(reason));
	ERR_clear_error();
	return fail_with(err, "%s%s%s", what, e ? ": " : "", e ? reason : "");
}

/* The Authenticode hash of file with md, as UEFI firmware computes it
 * (DxeImageVerificationLib: the sections in file order, then what lies
 * past SizeOfHeaders plus their sizes, less the certificate table). */
static int image_hash(const struct buffer *f, const struct pe_info *pe, const EVP_MD *md, uint8_t *out,
		      unsigned *out_len, struct error *err)
{
	struct pe_section s[MAX_SECTIONS_HASHED];
	unsigned n = 0;

	if (pe->directories <= 4 || pe->cert_dir_offset + 8 > pe->size_of_headers ||
	    pe->size_of_headers > f->size)
		return fail_with(err, "the PE headers have no certificate table entry");
	if (pe->sections > MAX_SECTIONS_HASHED)
		return fail_with(err, "%u PE sections, more than a loader takes", pe->sections);
	for (unsigned i = 0; i < pe->sections; i++) {
		struct pe_section t = pe_section(f, pe, i);
		if (!t.raw_size)
			continue;
		if (t.raw_offset > f->size || f->size - t.raw_offset < t.raw_size)
			return fail_with(err, "PE section %s runs past the end of the file", t.name);
		unsigned j = n++;
		for (; j > 0 && s[j - 1].raw_offset > t.raw_offset; j--)
			s[j] = s[j - 1];
		s[j] = t;
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, md, NULL) &&
		 EVP_DigestUpdate(ctx, f->data, pe->checksum_offset) &&
		 EVP_DigestUpdate(ctx, f->data + pe->checksum_offset + 4, pe->cert_dir_offset - pe->checksum_offset - 4) &&
		 EVP_DigestUpdate(ctx, f->data + pe->cert_dir_offset + 8, pe->size_of_headers - pe->cert_dir_offset - 8);
	uint64_t hashed = pe->size_of_headers;
	for (unsigned i = 0; ok && i < n; i++) {
		ok = EVP_DigestUpdate(ctx, f->data + s[i].raw_offset, s[i].raw_size);
		hashed += s[i].raw_size;
	}
	uint64_t end = f->size;
	if (pe->cert_size)
		end = f->size > hashed + pe->cert_size ? f->size - pe->cert_size : hashed;
	if (ok && end > hashed)
		ok = EVP_DigestUpdate(ctx, f->data + hashed, end - hashed);
	ok = ok && EVP_DigestFinal_ex(ctx, out, out_len);
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : openssl_fail(err, "hashing the image");
}

/* ---- signing ---------------------------------------------------------- */

static int passphrase(char *buf, int size, int rwflag, void *missing)
{
	const char *p = getenv(SIGN_PASSPHRASE_ENV);

	(void)rwflag;
	if (!p) {
		*(int *)missing = 1;
		return -1;
	}
	int n = (int)strlen(p);
	if (n > size)
		n = size;
	memcpy(buf, p, (size_t)n);
	return n;
}

static EVP_PKEY *read_key(const char *path, struct error *err)
{
	BIO *in = BIO_new_file(path, "r");
	int missing = 0;

	if (!in) {
		openssl_fail(err, "cannot open the key");
		return NULL;
	}
	EVP_PKEY *key = PEM_read_bio_PrivateKey(in, NULL, passphrase, &missing);
	BIO_free(in);
	if (!key && missing)
		fail_with(err, "the key is encrypted: put its passphrase in $%s", SIGN_PASSPHRASE_ENV);
	else if (!key)
		openssl_fail(err, "not a PEM private key, or a wrong passphrase");
	ERR_clear_error();
	return key;
}

static X509 *read_cert(const char *path, struct error *err)
{
	BIO *in = BIO_new_file(path, "rb");

	if (!in) {
		openssl_fail(err, "cannot open the certificate");
		return NULL;
	}
	X509 *cert = PEM_read_bio_X509(in, NULL, NULL, NULL);
	if (!cert && BIO_reset(in) == 0)
		cert = d2i_X509_bio(in, NULL);
	BIO_free(in);
	if (!cert)
		openssl_fail(err, "not an X.509 certificate (PEM or DER)");
	ERR_clear_error();
	return cert;
}

/* The DER of the SpcIndirectDataContent for an image hash (SHA-256). */
static int indirect_data(const uint8_t *hash, unsigned hash_len, uint8_t **der, int *der_len)
{
	static const char obsolete[] = OBSOLETE_FILE_NAME;
	uint8_t pid[sizeof(pe_image_data_head) + OBSOLETE_UTF16_SIZE];
	BZ_SPC_INDIRECT_DATA *idc = BZ_SPC_INDIRECT_DATA_new();
	ASN1_STRING *seq = ASN1_STRING_new();
	X509_ALGOR *digest_algorithm;
	ASN1_OCTET_STRING *digest;
	int ok = 0;

	memcpy(pid, pe_image_data_head, sizeof(pe_image_data_head));
	for (size_t i = 0; i + 1 < sizeof(obsolete); i++) {   /* UTF-16BE, as BMPString is */
		pid[sizeof(pe_image_data_head) + 2 * i] = 0;
		pid[sizeof(pe_image_data_head) + 2 * i + 1] = (uint8_t)obsolete[i];
	}
	*der = NULL;
	if (!idc || !seq || !ASN1_STRING_set(seq, pid, sizeof(pid)) ||
	    !X509_ALGOR_set0(idc->data, OBJ_txt2obj(OID_SPC_PE_IMAGE_DATA, 1), V_ASN1_SEQUENCE, seq)) {
		ASN1_STRING_free(seq);
		goto done;
	}
	X509_SIG_getm(idc->message_digest, &digest_algorithm, &digest);
	if (!idc->data->algorithm ||
	    !X509_ALGOR_set0(digest_algorithm, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, NULL) ||
	    !ASN1_OCTET_STRING_set(digest, hash, (int)hash_len))
		goto done;
	*der_len = i2d_BZ_SPC_INDIRECT_DATA(idc, der);
	ok = *der_len > 0;
done:
	BZ_SPC_INDIRECT_DATA_free(idc);
	return ok;
}

/* Where a DER TLV's value starts: its length in *header. */
static int der_header(const uint8_t *der, long der_len, long *header)
{
	const uint8_t *p = der;
	long len;
	int tag, class;

	if (ASN1_get_object(&p, &len, &tag, &class, der_len) & 0x80)
		return 0;
	*header = (long)(p - der);
	return *header + len == der_len;
}

static PKCS7 *signed_data(const uint8_t *idc, int idc_len, X509 *cert, EVP_PKEY *key)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned md_len;
	long header;
	PKCS7 *p7 = PKCS7_new(), *content = PKCS7_new();
	ASN1_STRING *seq = ASN1_STRING_new();
	PKCS7_SIGNER_INFO *si;

	if (!p7 || !content || !seq || !der_header(idc, idc_len, &header) || !PKCS7_set_type(p7, NID_pkcs7_signed) ||
	    !(si = PKCS7_add_signature(p7, cert, key, EVP_sha256())) || !PKCS7_add_certificate(p7, cert) ||
	    !PKCS7_add_signed_attribute(si, NID_pkcs9_contentType, V_ASN1_OBJECT, OBJ_txt2obj(OID_SPC_INDIRECT_DATA, 1)) ||
	    !EVP_Digest(idc + header, (size_t)(idc_len - header), md, &md_len, EVP_sha256(), NULL) ||
	    !PKCS7_add1_attrib_digest(si, md, (int)md_len) ||
	    /* Signs the attributes as they are: unlike PKCS7_dataFinal, it
	     * adds no signing time, so the result is the same every time. */
	    PKCS7_SIGNER_INFO_sign(si) <= 0)
		goto failed;
	content->type = OBJ_txt2obj(OID_SPC_INDIRECT_DATA, 1);
	if (!content->type || !(content->d.other = ASN1_TYPE_new()) || !ASN1_STRING_set(seq, idc, idc_len))
		goto failed;
	ASN1_TYPE_set(content->d.other, V_ASN1_SEQUENCE, seq);
	seq = NULL;
	if (!PKCS7_set_content(p7, content))
		goto failed;
	return p7;
failed:
	ASN1_STRING_free(seq);
	PKCS7_free(content);
	PKCS7_free(p7);
	return NULL;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int sign_image(struct buffer *image, const char *key_path, const char *cert_path, const char **culprit,
	       struct error *err)
{
	uint8_t hash[EVP_MAX_MD_SIZE], *idc = NULL, *p7_der = NULL;
	unsigned hash_len;
	int idc_len, p7_len, r = -1;
	struct pe_info pe;
	PKCS7 *p7 = NULL;
	X509 *cert = NULL;
	EVP_PKEY *key = NULL;

	if (pe_parse(image, &pe) < 0)
		return fail_with(err, "a %s image cannot be signed: no PE header (64-bit images have one)",
				 pe.problem);
	if (pe.cert_offset || pe.cert_size)
		return fail_with(err, "internal error: the image is signed already");
	if (image->size % CERT_TABLE_ALIGN)
		return fail_with(err, "internal error: the image does not end on 8 bytes");
	*culprit = key_path;
	if (!(key = read_key(key_path, err)))
		goto done;
	*culprit = cert_path;
	if (!(cert = read_cert(cert_path, err)))
		goto done;
	if (X509_check_private_key(cert, key) != 1) {
		ERR_clear_error();
		fail_with(err, "the certificate is not the --sign-key's");
		goto done;
	}
	*culprit = NULL;
	if (image_hash(image, &pe, EVP_sha256(), hash, &hash_len, err) < 0)
		goto done;
	if (!indirect_data(hash, hash_len, &idc, &idc_len) || !(p7 = signed_data(idc, idc_len, cert, key)) ||
	    (p7_len = i2d_PKCS7(p7, &p7_der)) <= 0) {
		openssl_fail(err, "making the PKCS#7 signature");
		goto done;
	}
	size_t entry = WIN_CERT_HEADER + (size_t)p7_len, table = align_up(entry, CERT_TABLE_ALIGN);
	uint8_t *grown = realloc(image->data, image->size + table);
	if (!grown) {
		fail_with(err, "out of memory");
		goto done;
	}
	image->data = grown;
	uint8_t *w = image->data + image->size;
	memset(w, 0, table);
	put32(w, (uint32_t)entry);              /* dwLength, without the padding */
	w[4] = (uint8_t)WIN_CERT_REVISION_2_0;
	w[5] = WIN_CERT_REVISION_2_0 >> 8;
	w[6] = WIN_CERT_PKCS_SIGNED;
	memcpy(w + WIN_CERT_HEADER, p7_der, (size_t)p7_len);
	put32(image->data + pe.cert_dir_offset, (uint32_t)image->size);
	put32(image->data + pe.cert_dir_offset + 4, (uint32_t)table);
	image->size += table;
	r = 0;
done:
	OPENSSL_free(idc);
	OPENSSL_free(p7_der);
	PKCS7_free(p7);
	X509_free(cert);
	EVP_PKEY_free(key);
	return r;
}

/* ---- reading signatures ------------------------------------------------ */

/* Each PKCS#7 blob of the certificate table, in turn: fn(blob, size, arg)
 * for every WIN_CERTIFICATE of type PKCS_SIGNED_DATA; the count. */
static unsigned each_signature(const struct buffer *f, const struct pe_info *pe,
			       void (*fn)(const uint8_t *, size_t, unsigned, void *), void *arg)
{
	uint64_t at = pe->cert_offset, end = (uint64_t)pe->cert_offset + pe->cert_size;
	unsigned count = 0;

	if (!pe->cert_size || end > f->size)
		return 0;
	while (end - at >= WIN_CERT_HEADER) {
		uint32_t len = le32(f->data + at);
		uint16_t type = le16(f->data + at + 6);
		if (len < WIN_CERT_HEADER || len > end - at)
			break;
		if (type == WIN_CERT_PKCS_SIGNED) {
			if (fn)
				fn(f->data + at + WIN_CERT_HEADER, len - WIN_CERT_HEADER, count, arg);
			count++;
		}
		at += align_up(len, CERT_TABLE_ALIGN);
	}
	return count;
}

unsigned sign_count(const struct buffer *file)
{
	struct pe_info pe;

	return pe_parse(file, &pe) < 0 ? 0 : each_signature(file, &pe, NULL, NULL);
}

struct verdict {
	char subject[NAME_MAX_TEXT], issuer[NAME_MAX_TEXT];
	const char *digest;       /* "sha256", ... */
	const char *problem;      /* why the signature could not be read */
	int hash_matches, signature_ok;
};

static void name_text(const X509_NAME *name, char *out, size_t size)
{
	BIO *b = BIO_new(BIO_s_mem());
	int n = 0;

	out[0] = 0;
	if (b && X509_NAME_print_ex(b, name, 0, XN_FLAG_ONELINE & ~XN_FLAG_SPC_EQ) >= 0)
		n = BIO_read(b, out, (int)size - 1);
	out[n > 0 ? n : 0] = 0;
	BIO_free(b);
}

/* What one PKCS#7 blob says about the image in f. */
static void judge(const uint8_t *der, size_t size, const struct buffer *f, const struct pe_info *pe,
		  struct verdict *v)
{
	const uint8_t *p = der;
	PKCS7 *p7 = d2i_PKCS7(NULL, &p, (long)size);
	BZ_SPC_INDIRECT_DATA *idc = NULL;
	char oid[64];

	memset(v, 0, sizeof(*v));
	v->problem = "not a PKCS#7 SignedData";
	if (!p7 || !PKCS7_type_is_signed(p7) || !p7->d.sign->contents)
		goto done;
	PKCS7 *content = p7->d.sign->contents;
	v->problem = "its content is not an Authenticode SpcIndirectDataContent";
	if (!content->type || OBJ_obj2txt(oid, sizeof(oid), content->type, 1) <= 0 ||
	    strcmp(oid, OID_SPC_INDIRECT_DATA) != 0 || !content->d.other ||
	    content->d.other->type != V_ASN1_SEQUENCE)
		goto done;
	const ASN1_STRING *seq = content->d.other->value.sequence;
	const uint8_t *q = seq->data;
	long header;
	if (!(idc = d2i_BZ_SPC_INDIRECT_DATA(NULL, &q, seq->length)) || !der_header(seq->data, seq->length, &header))
		goto done;
	v->problem = NULL;
	const X509_ALGOR *digest_algorithm;
	const ASN1_OCTET_STRING *digest;
	X509_SIG_get0(idc->message_digest, &digest_algorithm, &digest);
	const EVP_MD *md = EVP_get_digestbyobj(digest_algorithm->algorithm);
	v->digest = md ? EVP_MD_get0_name(md) : "unknown";
	uint8_t hash[EVP_MAX_MD_SIZE];
	unsigned hash_len;
	struct error ignored;
	if (md && image_hash(f, pe, md, hash, &hash_len, &ignored) == 0)
		v->hash_matches = (int)hash_len == ASN1_STRING_length(digest) &&
				  memcmp(hash, ASN1_STRING_get0_data(digest), hash_len) == 0;
	STACK_OF(PKCS7_SIGNER_INFO) *signers = PKCS7_get_signer_info(p7);
	if (signers && sk_PKCS7_SIGNER_INFO_num(signers) > 0) {
		PKCS7_ISSUER_AND_SERIAL *ias = sk_PKCS7_SIGNER_INFO_value(signers, 0)->issuer_and_serial;
		X509 *signer = X509_find_by_issuer_and_serial(p7->d.sign->cert, ias->issuer, ias->serial);
		if (signer) {
			name_text(X509_get_subject_name(signer), v->subject, sizeof(v->subject));
			name_text(X509_get_issuer_name(signer), v->issuer, sizeof(v->issuer));
		} else {
			name_text(ias->issuer, v->issuer, sizeof(v->issuer));
		}
	}
	/* The signature over the content, by the signer's own certificate
	 * (the chain to a db or MOK entry is the firmware's and shim's). */
	BIO *in = BIO_new_mem_buf(seq->data + header, (int)(seq->length - header));
	X509_STORE *store = X509_STORE_new();
	v->signature_ok = in && store && PKCS7_verify(p7, NULL, store, in, NULL, PKCS7_NOVERIFY | PKCS7_BINARY) == 1;
	X509_STORE_free(store);
	BIO_free(in);
done:
	ERR_clear_error();
	BZ_SPC_INDIRECT_DATA_free(idc);
	PKCS7_free(p7);
}

struct print_arg {
	FILE *out;
	const struct buffer *file;
	const struct pe_info *pe;
	int any_valid;
};

static void print_one(const uint8_t *der, size_t size, unsigned index, void *arg)
{
	struct print_arg *a = arg;
	struct verdict v;

	judge(der, size, a->file, a->pe, &v);
	a->any_valid |= !v.problem && v.hash_matches && v.signature_ok;
	if (!a->out)
		return;
	if (v.problem) {
		fprintf(a->out, "%-15s %u: %zu bytes, unreadable: %s\n", index ? "" : "signatures:", index + 1, size,
			v.problem);
		return;
	}
	fprintf(a->out, "%-15s %u: subject \"%s\", issuer \"%s\", digest %s, image hash %s, signature %s\n",
		index ? "" : "signatures:", index + 1, v.subject[0] ? v.subject : "(no certificate)", v.issuer,
		v.digest, v.hash_matches ? "matches" : "DOES NOT MATCH",
		v.signature_ok ? "valid (by its own certificate; the chain is not checked)" : "INVALID");
}

/* Judge every signature, printing each when out is set: 1 if any holds. */
static int visit(const struct buffer *file, FILE *out)
{
	struct pe_info pe;
	struct print_arg a = { out, file, &pe, 0 };

	if (pe_parse(file, &pe) < 0)
		return 0;
	if (!each_signature(file, &pe, print_one, &a) && out)
		fprintf(out, "%-15s none (unsigned: Secure Boot refuses it)\n", "signatures:");
	return a.any_valid;
}

int sign_any_valid(const struct buffer *file)
{
	return visit(file, NULL);
}

void sign_print(FILE *out, const struct buffer *file)
{
	visit(file, out);
}
