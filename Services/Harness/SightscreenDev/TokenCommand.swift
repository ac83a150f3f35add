import Auth
import CommandLineSupport
import DevCredentials
import Foundation
import Runtime

/// `sightscreen token --user ID [--admin] [--ttl SECONDS]` and `sightscreen dev-keys` (forwarded here): the dev key
/// pair (created on first use in `$STACK_DIR/dev-keys`, never printed) and RS256 access tokens
/// signed with it, with the issuer and client id the api defaults to (AUTH_ISSUER, AUTH_CLIENT_ID).
struct TokenCommand {
    let console: Console
    let environment: EnvironmentReader

    private var store: DevKeyStore {
        DevKeyStore(directory: environment.raw("DEV_KEYS_DIR") ?? ((environment.raw("STACK_DIR").flatMap { $0.isEmpty ? nil : $0 } ?? ".stack") + "/dev-keys"))
    }

    /// Prints a dev JWT for `--user`.
    func token(_ options: ArraySlice<String>) throws {
        var user: String?
        var admin = false
        var ttl: Int64 = 3600
        var iterator = options.makeIterator()
        while let option = iterator.next() {
            switch option {
            case "--user":
                guard let value = iterator.next() else { throw UsageError(message: "--user needs an id") }
                user = value
            case "--admin": admin = true
            case "--ttl":
                guard let value = iterator.next().flatMap(Int64.init), (1...31_536_000).contains(value) else {
                    throw UsageError(message: "--ttl needs seconds between 1 and 31536000")
                }
                ttl = value
            default: throw UsageError(message: "token: unknown option \(option)")
            }
        }
        guard let user, !user.isEmpty, user.utf8.count <= 128 else { throw UsageError(message: "token needs --user ID") }
        let signer = try store.loadOrCreate()
        let claims = JWTSigner.accessClaims(
            userId: user, issuer: environment.string("AUTH_ISSUER", default: DevKeyStore.defaultIssuer),
            clientId: environment.string("AUTH_CLIENT_ID", default: DevKeyStore.defaultClientId), now: Date(), ttl: ttl, admin: admin)
        console.line(try signer.sign(claims))
    }

    /// Creates the dev key pair if needed and prints where it is (never the key itself).
    func devKeys() throws {
        let signer = try store.loadOrCreate()
        console.line("kid \(signer.kid)")
        console.line("private key \(store.privateKeyPath) (git-ignored, keep it secret)")
        console.line("jwks \(store.jwksPath)  → api: AUTH_JWKS_PATH=\(store.jwksPath)")
    }
}
