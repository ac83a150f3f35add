import COpenSSL
import COpenSSLShim
import Crypto
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
    /// - Throws: `CryptoError.certificate` when OpenSSL fails, or the file system's error.
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
    public static func generatePEM(commonName: String, extraNames: [String] = [], days: Int = 825) throws(CryptoError) -> (certificate: String, privateKey: String) {
        let key = try AsymmetricKey.generateP256()
        guard let certificate = X509_new() else { throw .certificate(OpenSSLErrorQueue.drain()) }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        var serial = [UInt8](repeating: 0, count: 8)
        RAND_bytes(&serial, Int32(serial.count))
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(serial.withUnsafeBytes { $0.load(as: UInt32.self) } & 0x7fff_ffff))
        X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400)
        X509_set_pubkey(certificate, key.key)
        let name = X509_get_subject_name(certificate)
        guard sightscreen_x509_name_add_cn(name, commonName) == 1, X509_set_issuer_name(certificate, name) == 1 else {
            throw .certificate(OpenSSLErrorQueue.drain())
        }
        var names = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"]
        if commonName != "localhost" { names.append("DNS:\(commonName)") }
        for extra in extraNames { names.append(HostName.isIPLiteral(extra) ? "IP:\(extra)" : "DNS:\(extra)") }
        guard sightscreen_x509_add_san(certificate, names.joined(separator: ",")) == 1,
              X509_sign(certificate, key.key, EVP_sha256()) > 0 else {
            throw .certificate(OpenSSLErrorQueue.drain())
        }
        let certificatePEM = try MemoryBIO.text { PEM_write_bio_X509($0, certificate) }
        return (certificatePEM, try key.privateKeyPEM())
    }
}
