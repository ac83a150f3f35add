import Foundation
import Runtime

/// Who the backend is to APNs — the team, the .p8 key, the app — read from the environment in one place for
/// every service that talks to APNs (apns-sender's pushes and broadcasts, the poller's channel management):
/// `APNS_TEAM_ID`, `APNS_KEY_ID`, `APNS_KEY_PATH`, `APNS_BUNDLE_ID`, `APNS_CA_FILE`. Errors name the variable,
/// never the key's contents.
public struct APNsCredentials: Sendable, Equatable {
    /// The Apple developer team (JWT `iss`).
    public var teamID: String
    /// The key id of the .p8 (JWT `kid`).
    public var keyID: String
    /// The .p8 file (PKCS#8 PEM P-256 private key).
    public var keyPath: String
    /// The app's bundle id (topic).
    public var bundleID: String
    /// A PEM CA to trust instead of the system CAs (mock-apns).
    public var caFile: String?

    public init(teamID: String, keyID: String, keyPath: String, bundleID: String, caFile: String? = nil) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.bundleID = bundleID
        self.caFile = caFile
    }

    /// Reads and checks the five variables.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        func identifier(_ name: String) throws(ConfigurationError) -> String {
            let value = try environment.requiredString(name)
            guard value.utf8.allSatisfy({ $0 == 0x2E || $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0)
                || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw .invalid(variable: name, value: value, expected: "letters, digits, '.', '-' or '_'")
            }
            return value
        }
        teamID = try identifier("APNS_TEAM_ID")
        keyID = try identifier("APNS_KEY_ID")
        keyPath = try environment.requiredString("APNS_KEY_PATH")
        bundleID = try identifier("APNS_BUNDLE_ID")
        caFile = environment.raw("APNS_CA_FILE")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .invalid(variable: "APNS_CA_FILE", value: caFile, expected: "a readable PEM file")
        }
    }

    /// Loads the .p8 key; a failure names `APNS_KEY_PATH` and the path, never the file's contents.
    public func loadKey() throws(ConfigurationError) -> APNsSigningKey {
        do {
            let key = try APNsSigningKey(contentsOfFile: keyPath)
            guard key.canSign else { throw APNsError.invalidKey("public key only") }
            return key
        } catch {
            throw .invalid(variable: "APNS_KEY_PATH", value: keyPath, expected: "a readable .p8 P-256 private key (\(error))")
        }
    }
}

extension APNsEndpoint {
    /// `<prefix>_HOST` and `<prefix>_PORT`, each defaulting to `fallback`'s.
    public static func read(_ prefix: String, default fallback: APNsEndpoint, from environment: EnvironmentReader)
        throws(ConfigurationError) -> APNsEndpoint
    {
        let host = environment.string("\(prefix)_HOST", default: fallback.host)
        let port = try environment.port("\(prefix)_PORT", default: UInt16(fallback.port))
        return APNsEndpoint(host: host, port: Int(port))
    }
}
