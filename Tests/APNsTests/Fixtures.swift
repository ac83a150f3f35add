import Crypto
import DevCredentials
import APNs
import APNsMock
import Contracts
import Foundation
import HTTP2
import Runtime

/// Keys, certificates, a mock server and clients for the APNs tests (all generated, nothing committed).
enum Fixtures {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundleID = "com.sightscreen.app"

    static let privateKeyPEM: String = try! APNsSigningKey.generatePrivateKeyPEM()
    static let key: APNsSigningKey = try! APNsSigningKey(pem: privateKeyPEM)
    static let otherKey: APNsSigningKey = try! APNsSigningKey(pem: APNsSigningKey.generatePrivateKeyPEM())
    static let certificate: SelfSignedCertificate = try! SelfSignedCertificate.loadOrGenerate(
        in: NSTemporaryDirectory() + "apnstests-\(getpid())")

    static func mock(
        maxConcurrentStreams: Int = 1000, faults: MockAPNsFaults = MockAPNsFaults(), clock: any WallClock = SystemWallClock(),
        logFile: String? = nil, managementPorts: [APNsServerEnvironment: Int] = [:], channelLimit: Int = 10_000
    ) throws -> MockAPNsServer {
        try MockAPNsServer(configuration: MockAPNsConfiguration(
            certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile, teamID: teamID,
            keys: [keyID: try APNsSigningKey(pem: key.publicKeyPEM)], bundleID: bundleID,
            maxConcurrentStreams: maxConcurrentStreams, deliveryLogFile: logFile, clock: clock, faults: faults,
            managementPorts: managementPorts, channelLimit: channelLimit))
    }

    /// A mock with both management listeners on free ports.
    static func broadcastMock(faults: MockAPNsFaults = MockAPNsFaults(), channelLimit: Int = 10_000, clock: any WallClock = SystemWallClock())
        throws -> MockAPNsServer
    {
        try mock(faults: faults, clock: clock, managementPorts: [.production: 0, .sandbox: 0], channelLimit: channelLimit)
    }

    /// The channel management client of `client`'s app against `mock`'s management listeners.
    static func channelClient(_ mock: MockAPNsServer, tokens: APNsTokenProvider, bundleID: String = Fixtures.bundleID) throws -> APNsChannelClient {
        try APNsChannelClient(
            bundleID: bundleID, tokens: tokens, production: .local(port: mock.managementPort(for: .production)!),
            sandbox: .local(port: mock.managementPort(for: .sandbox)!), caFile: certificate.certificateFile, requestTimeout: .seconds(10))
    }

    /// A broadcast update body (the same `aps` as a token update).
    static let broadcastUpdate = Array(#"{"aps":{"timestamp":\#(now),"event":"update","content-state":{"score":"99/2"}}}"#.utf8)

    static func client(
        port: Int, key: APNsSigningKey = Fixtures.key, bundleID: String = Fixtures.bundleID, clock: any WallClock = SystemWallClock(),
        connections: Int = 2
    ) throws -> APNsClient {
        try APNsClient(configuration: APNsClientConfiguration(
            teamID: teamID, keyID: keyID, signingKey: key, bundleID: bundleID, production: .local(port: port),
            sandbox: .local(port: port), caFile: certificate.certificateFile, connectionsPerHost: connections,
            requestTimeout: .seconds(10), clock: clock))
    }

    static func token(length: Int = 160) -> String {
        (0..<length / 2).map { _ in String(UInt8.random(in: 0...255), radix: 16).leftPad() }.joined()
    }

    static func target(_ token: String = Fixtures.token(), env: APNsServerEnvironment = .production) -> APNsDeviceToken {
        APNsDeviceToken(token, environment: env)
    }

    static let now = Int64(Date().timeIntervalSince1970)

    static let update = Array(#"{"aps":{"timestamp":\#(now),"event":"update","content-state":{"score":"87/6"}}}"#.utf8)
    static let end = Array(#"{"aps":{"timestamp":\#(now),"event":"end","dismissal-date":\#(now + 3600),"content-state":{"score":"180/9"}}}"#.utf8)
    static let start = Array(#"{"aps":{"timestamp":\#(now),"event":"start","content-state":{"score":"0/0"},"attributes-type":"MatchActivityAttributes","attributes":{"matchId":"m1","title":"Live"},"alert":{"title":"Live","body":"Match started"}}}"#.utf8)
    static let alert = Array(#"{"aps":{"alert":{"title":"Wicket","body":"Rohit out"}}}"#.utf8)

    /// One job's pushes: the same payload to every target, apns-ids derived from one job id.
    static func job(targets: [APNsDeviceToken], payload: [UInt8] = update, type: APNsPushType = .liveActivity) -> [APNsPush] {
        let jobID = "job-\(UUID().uuidString)"
        return targets.map {
            APNsPush(payload: payload, device: $0, type: type, priority: 5, expiration: now + 3600,
                     apnsID: APNsID.derive(jobID: jobID, token: $0.token))
        }
    }
}

extension APNsClient {
    /// The tests' shorthand for one push.
    func send(payload: [UInt8], target: APNsDeviceToken, kind: APNsPushType, priority: Int, expiration: Int64?, apnsID: String,
              collapseID: String? = nil) async -> APNsOutcome {
        await send(APNsPush(payload: payload, device: target, type: kind, priority: priority, expiration: expiration, apnsID: apnsID,
                            collapseID: collapseID))
    }
}

extension String {
    func leftPad() -> String { count == 1 ? "0" + self : self }
}
