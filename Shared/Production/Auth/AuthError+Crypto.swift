import Crypto

extension AuthError {
    /// Runs an OpenSSL operation of `Crypto`, reporting its failure as the matching `AuthError`.
    package static func mapping<T>(_ operation: () throws(CryptoError) -> T) throws(AuthError) -> T {
        do {
            return try operation()
        } catch {
            switch error {
            case .invalidKey(let why): throw .invalidKey(why)
            case .signingFailed(let why), .certificate(let why): throw .signingFailed(why)
            }
        }
    }
}
