import Foundation

/// Generated dev secrets and files the stack needs, all under one git-ignored folder
/// (`.stack/dev` by default) and created on first use:
/// - the APNs signing key (`mock-apns --generate-dev-key`) that apns-sender signs with and mock-apns checks,
/// - mock-apns's self-signed TLS certificate folder (`cert.pem` is the CA apns-sender and device-sim trust),
/// - the JWT dev key pair (`sightscreen dev-keys`: `jwt-private.pem` + `jwks.json`) that the api
///   verifies and device-sim signs user tokens with,
/// - a matches folder holding just the replayed Cricsheet file (so the fake schedules only it).
public struct DevMaterial: Sendable, Equatable {
    public var directory: URL
    public var apnsKeyID: String
    public var apnsTeamID: String
    public var bundleID: String

    public init(directory: URL, apnsKeyID: String = "DEVKEY0001", apnsTeamID: String = "DEVTEAM001",
                bundleID: String = "com.sightscreen.app") {
        self.directory = directory
        self.apnsKeyID = apnsKeyID
        self.apnsTeamID = apnsTeamID
        self.bundleID = bundleID
    }

    public var apnsKeyDirectory: URL { directory.appendingPathComponent("apns") }
    /// The .p8 private key apns-sender signs with.
    public var apnsPrivateKey: URL { apnsKeyDirectory.appendingPathComponent("AuthKey_\(apnsKeyID).p8") }
    /// Its public half, which mock-apns verifies JWTs with.
    public var apnsPublicKey: URL { apnsKeyDirectory.appendingPathComponent("AuthKey_\(apnsKeyID).pub.pem") }
    /// mock-apns's TLS folder.
    public var certificateDirectory: URL { directory.appendingPathComponent("mock-apns-tls") }
    /// The CA file to trust for mock-apns (exists once mock-apns has started).
    public var certificateFile: URL { certificateDirectory.appendingPathComponent("cert.pem") }
    /// `sightscreen dev-keys`'s folder.
    public var devKeysDirectory: URL { directory.appendingPathComponent("dev-keys") }
    public var jwks: URL { devKeysDirectory.appendingPathComponent("jwks.json") }
    /// The folder handed to fake-sportmonks.
    public func matchesDirectory(fixture: Int) -> URL { directory.appendingPathComponent("matches-\(fixture)") }

    /// Creates what is missing: the APNs key (via `mock-apns`), the JWT keys (via `sightscreen
    /// dev-keys`) and a matches folder with a copy of each of `matchFiles`.
    public func prepare(binDirectory: URL, environment: [String: String], matchFiles: [URL], fixture: Int) async throws(DevStackError) {
        let files = FileManager.default
        try? files.createDirectory(at: directory, withIntermediateDirectories: true)
        if !files.fileExists(atPath: apnsPrivateKey.path) || !files.fileExists(atPath: apnsPublicKey.path) {
            _ = try await DevCommand.run(binDirectory.appendingPathComponent("mock-apns"),
                                         ["--generate-dev-key", apnsKeyDirectory.path, "--key-id", apnsKeyID],
                                         environment: environment)
        }
        if !files.fileExists(atPath: jwks.path) {
            var env = environment
            env["DEV_KEYS_DIR"] = devKeysDirectory.path
            _ = try await DevCommand.run(binDirectory.appendingPathComponent("sightscreen"), ["dev-keys"], environment: env)
        }
        let folder = matchesDirectory(fixture: fixture)
        try? files.createDirectory(at: folder, withIntermediateDirectories: true)
        for matchFile in matchFiles {
            guard files.fileExists(atPath: matchFile.path) else {
                throw .invalidOption("no Cricsheet file \(matchFile.path) (set --cricsheet DIR or CRICSHEET_DIR)")
            }
            let copy = folder.appendingPathComponent(matchFile.lastPathComponent)
            if !files.fileExists(atPath: copy.path) {
                do { try files.copyItem(at: matchFile, to: copy) } catch {
                    throw .invalidOption("cannot copy \(matchFile.path) to \(copy.path): \(error)")
                }
            }
        }
    }
}
