import Contracts
import Foundation

/// Settings of one device-sim run, from flags (`--api URL`) or the environment
/// (`DEVICE_SIM_API`): upper-cased, dashes → underscores. Flags win.
struct SimulatorConfiguration: Sendable, Equatable {
    /// The api base URL, e.g. `http://127.0.0.1:8080`.
    var apiURL: String = "http://127.0.0.1:8080"
    /// mock-apns base URL for its control API, e.g. `https://127.0.0.1:2197`.
    var mockAPNsURL: String = "https://127.0.0.1:2197"
    /// The mock's `cert.pem` (nil: the system trust store).
    var caFile: String?
    /// Where `sightscreen dev-keys` put `jwt-private.pem` (nil: `$STACK_DIR/dev-keys`).
    var devKeysDirectory: String?
    /// JWT `iss` and `client_id` (the api's defaults unless AUTH_ISSUER / AUTH_CLIENT_ID are set).
    var authIssuer: String = "https://sightscreen.local/dev-user-pool"
    var authClientId: String = "sightscreen-ios-dev"
    /// Simulated devices; device i belongs to user `sim-user-(i/2)`.
    var deviceCount: Int = 10
    /// Matches every device follows once launched.
    var follow: [String] = []
    /// The simulator's own HTTP port on 127.0.0.1 (0: a free one).
    var port: UInt16 = 8095
    /// How often deliveries are pulled from mock-apns.
    var pollMilliseconds: Int = 250
    /// APNs environment the devices register.
    var environment: APNsEnvironment = .sandbox
    /// The app version the devices report (must pass the api's minimum version).
    var appVersion: String = "1.10.0"
    /// Also `Activity.request` locally when following a live match (the api push-starts anyway).
    var requestLocally: Bool = false
    /// `--channel-share X` (0…1, default 0): the share of devices that are iOS 18 with a build subscribing to broadcast
    /// channels; device i is one when ⌊(i+1)·X⌋ > ⌊i·X⌋ (spread evenly, the same every run).
    var channelShare: Double = 0

    /// True when device `index` is a channel device (`channelShare`).
    func supportsChannels(_ index: Int) -> Bool {
        (Double(index + 1) * channelShare).rounded(.down) > (Double(index) * channelShare).rounded(.down)
    }
    /// `--alert-banner-seconds S` (default 5): how long the preview shows the banner a priority-10 push raised.
    var alertBannerSeconds: Double = 5
    /// Devices launched at the same time.
    var launchConcurrency: Int = 32
    /// Most deliveries fetched per poll.
    var batchLimit: Int = 1000
    /// Prefix of device and user ids (`sim-device-3`, `sim-user-1`).
    var idPrefix: String = "sim"
    var logLevel: String = "info"

    /// The id of device `index`.
    func deviceId(_ index: Int) -> String { "\(idPrefix)-device-\(index)" }
    /// The user owning device `index`: two devices per user.
    func userId(_ index: Int) -> String { "\(idPrefix)-user-\(index / 2)" }

    static let valueFlags: Set<String> = [
        "api", "mock-apns", "ca-file", "dev-keys", "devices", "follow", "port", "poll-ms", "env", "app-version",
        "launch-concurrency", "batch-limit", "id-prefix", "log-level", "channel-share", "alert-banner-seconds",
    ]
    static let switchFlags: Set<String> = ["request-locally"]

    /// Parses `arguments` (without the program name) over `environment`.
    /// - Throws: `SimulatorConfigurationError` naming the flag and the bad value.
    static func parse(_ arguments: [String], environment: [String: String]) throws(SimulatorConfigurationError)
        -> SimulatorConfiguration
    {
        var values: [String: String] = [:]
        for name in valueFlags.union(switchFlags) {
            if let value = environment["DEVICE_SIM_" + name.uppercased().replacingOccurrences(of: "-", with: "_")] {
                values[name] = value
            }
        }
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { throw .init(flag: argument, value: nil, reason: "unexpected argument") }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if switchFlags.contains(name) {
                values[name] = inline ?? "true"
            } else if valueFlags.contains(name) {
                guard let value = inline ?? iterator.next() else { throw .init(flag: name, value: nil, reason: "needs a value") }
                values[name] = value
            } else {
                throw .init(flag: name, value: nil, reason: "unknown flag")
            }
        }
        var configuration = SimulatorConfiguration()
        if let value = environment["AUTH_ISSUER"], !value.isEmpty { configuration.authIssuer = value }
        if let value = environment["AUTH_CLIENT_ID"], !value.isEmpty { configuration.authClientId = value }
        if let value = values["api"] { configuration.apiURL = try url(value, flag: "api", schemes: ["http", "https"]) }
        if let value = values["mock-apns"] { configuration.mockAPNsURL = try url(value, flag: "mock-apns", schemes: ["https"]) }
        configuration.caFile = values["ca-file"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.devKeysDirectory = values["dev-keys"].flatMap { $0.isEmpty ? nil : $0 }
        ?? environment["STACK_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/dev-keys" }
        if let value = values["devices"] { configuration.deviceCount = try int(value, flag: "devices", 1...100_000) }
        if let value = values["follow"] {
            configuration.follow = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let value = values["port"] { configuration.port = UInt16(try int(value, flag: "port", 0...65535)) }
        if let value = values["poll-ms"] { configuration.pollMilliseconds = try int(value, flag: "poll-ms", 10...60_000) }
        if let value = values["env"] {
            guard let environment = APNsEnvironment(rawValue: value) else {
                throw .init(flag: "env", value: value, reason: "must be sandbox or production")
            }
            configuration.environment = environment
        }
        if let value = values["app-version"], !value.isEmpty { configuration.appVersion = value }
        if let value = values["request-locally"] { configuration.requestLocally = ["1", "true", "yes"].contains(value.lowercased()) }
        if let value = values["channel-share"] {
            guard let share = Double(value), (0...1).contains(share) else {
                throw .init(flag: "channel-share", value: value, reason: "must be a number from 0 to 1")
            }
            configuration.channelShare = share
        }
        if let value = values["alert-banner-seconds"] {
            guard let seconds = Double(value), (0...3600).contains(seconds) else {
                throw .init(flag: "alert-banner-seconds", value: value, reason: "must be seconds from 0 to 3600")
            }
            configuration.alertBannerSeconds = seconds
        }
        if let value = values["launch-concurrency"] { configuration.launchConcurrency = try int(value, flag: "launch-concurrency", 1...1000) }
        if let value = values["batch-limit"] { configuration.batchLimit = try int(value, flag: "batch-limit", 1...100_000) }
        if let value = values["id-prefix"], !value.isEmpty { configuration.idPrefix = value }
        if let value = values["log-level"] { configuration.logLevel = value }
        return configuration
    }

    private static func int(_ text: String, flag: String, _ range: ClosedRange<Int>) throws(SimulatorConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .init(flag: flag, value: text, reason: "must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    private static func url(_ text: String, flag: String, schemes: Set<String>) throws(SimulatorConfigurationError) -> String {
        guard let components = URLComponents(string: text), let scheme = components.scheme, schemes.contains(scheme),
            components.host != nil
        else { throw .init(flag: flag, value: text, reason: "must be a \(schemes.sorted().joined(separator: "/")) URL") }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}

/// A flag or environment value device-sim cannot use.
struct SimulatorConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    var flag: String
    var value: String?
    var reason: String
    var description: String { "--\(flag)\(value.map { " \($0)" } ?? ""): \(reason)" }
}
