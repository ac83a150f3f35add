import Auth
import DevCredentials
import Foundation

/// Mints RS256 access tokens in-process with the dev key pair `sightscreen dev-keys` wrote (the
/// api trusts its `jwks.json`), with the api's issuer and client id.
struct DevKeysTokenMinter: UserTokenMinter {
    let signer: JWTSigner
    let issuer: String
    let clientId: String
    /// Seconds each token is valid.
    let ttl: Int64

    /// Loads `directory/jwt-private.pem`. Throws `TokenMintingError` when it is missing (run
    /// `sightscreen dev-keys` first) or unreadable.
    init(directory: String, issuer: String, clientId: String, ttl: Int64 = 3600) throws {
        let store = DevKeyStore(directory: directory)
        guard FileManager.default.fileExists(atPath: store.privateKeyPath) else {
            throw TokenMintingError(reason: "no dev key at \(store.privateKeyPath): run `sightscreen dev-keys` first")
        }
        do {
            signer = try store.loadOrCreate()
        } catch {
            throw TokenMintingError(reason: "cannot load the dev key in \(directory): \(error)")
        }
        self.issuer = issuer
        self.clientId = clientId
        self.ttl = ttl
    }

    func token(userId: String) throws -> String {
        try signer.sign(JWTSigner.accessClaims(userId: userId, issuer: issuer, clientId: clientId, now: Date(), ttl: ttl))
    }
}
