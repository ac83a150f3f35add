import Auth
import Foundation

/// The dev key pair in a git-ignored folder (default `$STACK_DIR/dev-keys`): `jwt-private.pem`
/// (mode 0600, never logged) and `jwks.json` (its public JWK). Created on first use.
public struct DevKeyStore: Sendable {
    /// The dev issuer and client id the api defaults to (`JWTVerifierConfiguration`'s defaults).
    public static let defaultIssuer = JWTVerifierConfiguration.defaultIssuer
    public static let defaultClientId = JWTVerifierConfiguration.defaultClientId

    public let directory: String
    public var privateKeyPath: String { directory + "/jwt-private.pem" }
    public var jwksPath: String { directory + "/jwks.json" }

    public init(directory: String) { self.directory = directory }

    /// `$STACK_DIR/dev-keys`, or `.stack/dev-keys` when STACK_DIR is unset.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (environment["STACK_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? ".stack") + "/dev-keys"
    }

    /// Loads the signer, generating and saving a key pair first when none exists.
    /// - Throws: `AuthError.invalidKey` when the folder or files cannot be written or read.
    public func loadOrCreate() throws(AuthError) -> JWTSigner {
        let files = FileManager.default
        if !files.fileExists(atPath: privateKeyPath) {
            do {
                try files.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch { throw .invalidKey("cannot create \(directory)") }
            let pair = try RSAKeyPair.generate()
            let pem = try pair.privateKeyPEM()
            guard files.createFile(atPath: privateKeyPath, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw .invalidKey("cannot write \(privateKeyPath)")
            }
            let set = JSONWebKeySet(keys: [try pair.publicJWK(kid: try pair.thumbprintKid())])
            guard files.createFile(atPath: jwksPath, contents: Data(set.jsonText().utf8), attributes: [.posixPermissions: 0o644]) else {
                throw .invalidKey("cannot write \(jwksPath)")
            }
        }
        guard let data = files.contents(atPath: privateKeyPath) else { throw .invalidKey("cannot read \(privateKeyPath)") }
        let pair = try RSAKeyPair(privateKeyPEM: String(decoding: data, as: UTF8.self))
        let kid = try pair.thumbprintKid()
        // Keep jwks.json in step with the private key (e.g. when only the PEM was copied in).
        let set = JSONWebKeySet(keys: [try pair.publicJWK(kid: kid)])
        if (try? JSONWebKeySet(contentsOfFile: jwksPath)) != set {
            guard files.createFile(atPath: jwksPath, contents: Data(set.jsonText().utf8)) else {
                throw .invalidKey("cannot write \(jwksPath)")
            }
        }
        return JWTSigner(keyPair: pair, kid: kid)
    }
}
