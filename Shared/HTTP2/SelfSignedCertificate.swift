import COpenSSL
import COpenSSLShim
import Foundation

/// A self-signed P-256 certificate and its key as PEM files (for mock-apns and tests). Nothing
/// secret is committed: the files are generated where needed.
public struct SelfSignedCertificate: Sendable, Equatable {
    /// PEM certificate; clients trust it as their CA file.
    public var certificateFile: String
    /// PEM PKCS#8 private key.
    public var privateKeyFile: String

    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }

    /// Returns `cert.pem` / `key.pem` in `directory`, generating them first if either is missing.
    /// The certificate is valid for `localhost` and `127.0.0.1` (and `extraNames`) for `days` days.
    /// - Throws: `HTTP2Error.tls` when OpenSSL or the file system fails.
    public static func loadOrGenerate(
        in directory: String, commonName: String = "localhost", extraNames: [String] = [], days: Int = 825
    ) throws -> SelfSignedCertificate {
        let files = SelfSignedCertificate(
            certificateFile: (directory as NSString).appendingPathComponent("cert.pem"),
            privateKeyFile: (directory as NSString).appendingPathComponent("key.pem"))
        let manager = FileManager.default
        if manager.fileExists(atPath: files.certificateFile) && manager.fileExists(atPath: files.privateKeyFile) {
            return files
        }
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (certificate, key) = try generatePEM(commonName: commonName, extraNames: extraNames, days: days)
        try Data(key.utf8).write(to: URL(fileURLWithPath: files.privateKeyFile), options: .atomic)
        chmod(files.privateKeyFile, 0o600)
        try Data(certificate.utf8).write(to: URL(fileURLWithPath: files.certificateFile), options: .atomic)
        return files
    }

    /// A new certificate and key, both PEM text.
    public static func generatePEM(commonName: String, extraNames: [String] = [], days: Int = 825) throws(HTTP2Error) -> (certificate: String, privateKey: String) {
        let key = try ECKeyFactory.generateP256()
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw .tls(message: OpenSSLError.drain()) }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        var serial = [UInt8](repeating: 0, count: 8)
        RAND_bytes(&serial, Int32(serial.count))
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(serial.withUnsafeBytes { $0.load(as: UInt32.self) } & 0x7fff_ffff))
        X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        guard sightscreen_x509_name_add_cn(name, commonName) == 1, X509_set_issuer_name(certificate, name) == 1 else {
            throw .tls(message: OpenSSLError.drain())
        }
        var names = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"]
        if commonName != "localhost" { names.append("DNS:\(commonName)") }
        for extra in extraNames { names.append(TLSStream.isIPLiteral(extra) ? "IP:\(extra)" : "DNS:\(extra)") }
        guard sightscreen_x509_add_san(certificate, names.joined(separator: ",")) == 1,
              X509_sign(certificate, key, EVP_sha256()) > 0 else {
            throw .tls(message: OpenSSLError.drain())
        }
        let certificatePEM = try MemoryBIO.text { PEM_write_bio_X509($0, certificate) }
        let keyPEM = try MemoryBIO.text { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        return (certificatePEM, keyPEM)
    }
}

/// P-256 key generation shared by the certificate generator and the APNs dev key.
public enum ECKeyFactory {
    /// A new P-256 key pair. The caller owns it (used internally; frees with EVP_PKEY_free).
    static func generateP256() throws(HTTP2Error) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw .tls(message: OpenSSLError.drain()) }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(context, &key) == 1, let key else {
            throw .tls(message: OpenSSLError.drain())
        }
        return key
    }

    /// A new P-256 private key as PKCS#8 PEM text ("-----BEGIN PRIVATE KEY-----"), like an APNs .p8.
    public static func generateP256PrivateKeyPEM() throws(HTTP2Error) -> String {
        let key = try generateP256()
        defer { EVP_PKEY_free(key) }
        return try MemoryBIO.text { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }
}

/// Writes into an OpenSSL memory BIO and returns its contents as text.
enum MemoryBIO {
    static func text(_ write: (OpaquePointer) -> Int32) throws(HTTP2Error) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .tls(message: OpenSSLError.drain()) }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .tls(message: OpenSSLError.drain()) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = BIO_read(bio, &chunk, Int32(chunk.count))
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(count)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
