import APNs
import Contracts
import Foundation
import HTTP2
import Runtime

/// Keys, certificates, a mock server and clients for the APNs tests (all generated, nothing committed).
enum Fixtures {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundleID = "com.sightscreen.app"

    static let privateKeyPEM: String = try! ECKeyFactory.generateP256PrivateKeyPEM()
    static let key: APNsSigningKey = try! APNsSigningKey(pem: privateKeyPEM)
    static let otherKey: APNsSigningKey = try! APNsSigningKey(pem: ECKeyFactory.generateP256PrivateKeyPEM())
    static let certificate: SelfSignedCertificate = try! SelfSignedCertificate.loadOrGenerate(
        in: NSTemporaryDirectory() + "apnstests-\(getpid())")

    static func mock(
        maxConcurrentStreams: Int = 1000, faults: MockAPNsFaults = MockAPNsFaults(), clock: any WallClock = SystemWallClock(),
        logFile: String? = nil
    ) throws -> MockAPNsServer {
        try MockAPNsServer(configuration: MockAPNsConfiguration(
            certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile, teamID: teamID,
            keys: [keyID: try APNsSigningKey(pem: key.publicKeyPEM)], bundleID: bundleID,
            maxConcurrentStreams: maxConcurrentStreams, deliveryLogFile: logFile, clock: clock, faults: faults))
    }

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

    static func target(_ token: String = Fixtures.token(), env: APNsEnvironment = .production) -> PushTarget {
        PushTarget(token: token, env: env, userId: "u-\(token.prefix(6))", deviceId: "d-\(token.prefix(6))")
    }

    static let now = Int64(Date().timeIntervalSince1970)

    static let update = Array(#"{"aps":{"timestamp":\#(now),"event":"update","content-state":{"score":"87/6"}}}"#.utf8)
    static let end = Array(#"{"aps":{"timestamp":\#(now),"event":"end","dismissal-date":\#(now + 3600),"content-state":{"score":"180/9"}}}"#.utf8)
    static let start = Array(#"{"aps":{"timestamp":\#(now),"event":"start","content-state":{"score":"0/0"},"attributes-type":"MatchActivityAttributes","attributes":{"matchId":"m1","title":"Live"},"alert":{"title":"Live","body":"Match started"}}}"#.utf8)
    static let alert = Array(#"{"aps":{"alert":{"title":"Wicket","body":"Rohit out"}}}"#.utf8)

    static func job(targets: [PushTarget], payload: [UInt8] = update, kind: PushKind = .liveActivityUpdate) -> PushJob {
        PushJob(
            jobId: "job-\(UUID().uuidString)", kind: kind, matchId: "m1", stateSeq: 1, priority: 5, expiration: now + 3600,
            relevanceScore: nil, payload: String(decoding: payload, as: UTF8.self), targets: targets,
            createdAt: now * 1000)
    }
}

extension String {
    func leftPad() -> String { count == 1 ? "0" + self : self }
}
