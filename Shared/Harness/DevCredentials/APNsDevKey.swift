import APNs
import Crypto

extension APNsSigningKey {
    /// A fresh P-256 private key as PKCS#8 PEM, shaped like an APNs `.p8` (for the mock and tests; a real key
    /// comes from Apple).
    /// - Throws: `APNsError.signingFailed` when OpenSSL cannot generate it.
    public static func generatePrivateKeyPEM() throws(APNsError) -> String {
        do {
            return try AsymmetricKey.generateP256().privateKeyPEM()
        } catch {
            switch error {
            case .invalidKey(let why), .signingFailed(let why), .certificate(let why): throw .signingFailed(why)
            }
        }
    }
}
