// mock-apns: an APNs look-alike over TLS HTTP/2 for local runs, tests and benchmarks.
//
//   mock-apns --generate-dev-key DIR [--key-id DEVKEY0001]
//       writes DIR/AuthKey_<kid>.p8 (private, PKCS#8) and DIR/AuthKey_<kid>.pub.pem
//   mock-apns [--host 127.0.0.1] [--port 2197] [--cert-dir DIR] --key FILE [--key-id KID]
//             [--team-id TEAM] [--bundle-id ID] [--max-streams 1000] [--threads 1]
//             [--record-file FILE] [--no-record] [--no-validate-payload]
//             [--manage-port 2196] [--manage-sandbox-port 2195] [--channel-limit 10000]
//       serves; DIR/cert.pem (generated if missing) is the CA file clients must trust. The channel management
//       listeners (production, sandbox) open only when their port is given (0: a free one); broadcasts go to
//       /4/broadcasts on the push port.
// Every flag can also come from the environment: MOCK_APNS_PORT, MOCK_APNS_KEY, … (upper-case,
// dashes → underscores). Control API: https://127.0.0.1:PORT/mock/{counters,faults,unregistered,deliveries,reset}.
import Crypto
import DevCredentials
import APNs
import APNsMock
import Dispatch
import Foundation
import HTTP2
import Runtime
import ServiceKit

let logger = Logger(label: "mock-apns")

func output(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    logger.error(message)
    exit(2)
}

var parsedOptions: [String: String] = [:]
var flags: Set<String> = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    guard argument.hasPrefix("--") else { fail("unexpected argument \(argument)") }
    let name = String(argument.dropFirst(2))
    if ["no-record", "no-validate-payload"].contains(name) {
        flags.insert(name)
    } else if let value = arguments.next() {
        parsedOptions[name] = value
    } else {
        fail("--\(name) needs a value")
    }
}

let options = parsedOptions

func option(_ name: String, _ fallback: String? = nil) -> String? {
    options[name] ?? ProcessInfo.processInfo.environment["MOCK_APNS_" + name.uppercased().replacingOccurrences(of: "-", with: "_")] ?? fallback
}

let keyID = option("key-id", "DEVKEY0001")!

if let directory = options["generate-dev-key"] {
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let privatePEM = try APNsSigningKey.generatePrivateKeyPEM()
        let privatePath = (directory as NSString).appendingPathComponent("AuthKey_\(keyID).p8")
        let publicPath = (directory as NSString).appendingPathComponent("AuthKey_\(keyID).pub.pem")
        try Data(privatePEM.utf8).write(to: URL(fileURLWithPath: privatePath))
        chmod(privatePath, 0o600)
        try Data(APNsSigningKey(pem: privatePEM).publicKeyPEM.utf8).write(to: URL(fileURLWithPath: publicPath))
        output(privatePath)
        output(publicPath)
        exit(0)
    } catch {
        fail("cannot generate the dev key: \(error)")
    }
}

/// `--manage-port` (production) and `--manage-sandbox-port`: the management listeners to open.
func managementPorts() -> [APNsServerEnvironment: Int] {
    var ports: [APNsServerEnvironment: Int] = [:]
    for (name, environment) in [("manage-port", APNsServerEnvironment.production), ("manage-sandbox-port", .sandbox)] {
        guard let text = option(name) else { continue }
        guard let port = Int(text), (0...65535).contains(port) else { fail("--\(name) must be a port number, got \(text)") }
        ports[environment] = port
    }
    return ports
}

guard let keyFile = option("key") else { fail("--key FILE (a .p8 or public key PEM) is required; make one with --generate-dev-key DIR") }
let certificateDirectory = option("cert-dir", NSTemporaryDirectory() + "mock-apns-tls")!
do {
    let certificate = try SelfSignedCertificate.loadOrGenerate(in: certificateDirectory)
    let configuration = MockAPNsConfiguration(
        host: option("host", "127.0.0.1")!, port: Int(option("port", "2197")!) ?? 2197,
        certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile,
        teamID: option("team-id", "DEVTEAM001")!, keys: [keyID: try APNsSigningKey(contentsOfFile: keyFile)],
        bundleID: option("bundle-id", "com.sightscreen.app")!, maxConcurrentStreams: Int(option("max-streams", "1000")!) ?? 1000,
        threads: Int(option("threads", "1")!) ?? 1, validatePayloads: !flags.contains("no-validate-payload"),
        recordDeliveries: !flags.contains("no-record"), deliveryLogFile: option("record-file"),
        managementPorts: managementPorts(), channelLimit: Int(option("channel-limit", "10000")!) ?? 10_000)
    let server = try MockAPNsServer(configuration: configuration)
    logger.info("mock-apns listening", [
        "port": String(server.port), "caFile": certificate.certificateFile, "keyId": keyID, "teamId": configuration.teamID,
        "bundleId": configuration.bundleID,
    ])
    let manage = APNsServerEnvironment.allCases.compactMap { environment in
        server.managementPort(for: environment).map { "\(environment.rawValue):\($0)" }
    }
    output("listening 127.0.0.1:\(server.port) ca=\(certificate.certificateFile)" + (manage.isEmpty ? "" : " manage=" + manage.joined(separator: ",")))
    signal(SIGPIPE, SIG_IGN)  // a client that closed its connection must not kill the mock
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let shutdown = ShutdownSignal()
    let parentWatch = ParentWatch.fromEnvironment(signal: shutdown, logger: logger)
    Task {
        await shutdown.wait()
        parentWatch?.cancel()
        server.stop()
        logger.info("mock-apns stopped", ["accepted": String(server.counters.accepted)])
        exit(0)
    }
    dispatchMain()
} catch {
    fail("mock-apns cannot start: \(error)")
}
