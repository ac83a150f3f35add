import APNsMock
import CricsheetReplay
import Foundation

/// What a match-day run leaves for the checker, as files in one folder so a run can be checked again offline
/// (`sightscreen check-day --record DIR`): what APNs saw (mock-apns's accepted pushes and refusals, in its one sequence),
/// what the feed served and when (`ServedPosition`), the faults the driver injected, what the audience did, and which
/// Cricsheet file each fixture replays. Never anything the services counted.
public struct MatchDayRecord: Sendable {
    /// A replayed match: its fixture id and the Cricsheet file it comes from.
    public struct Match: Sendable, Hashable, Codable {
        public var fixture: String
        public var cricsheetFile: String
        public init(fixture: String, cricsheetFile: String) {
            self.fixture = fixture
            self.cricsheetFile = cricsheetFile
        }
    }

    public var matches: [Match]
    public var deliveries: [MockAPNsDelivery]
    public var refusals: [MockAPNsRefusal]
    public var served: [ServedPosition]
    public var faults: [MatchDayFault]
    /// What the audience did (follows, unfollows, dismissals during the run).
    public var actions: [MatchDayAction]

    public init(matches: [Match], deliveries: [MockAPNsDelivery], refusals: [MockAPNsRefusal], served: [ServedPosition],
                faults: [MatchDayFault], actions: [MatchDayAction] = []) {
        self.matches = matches
        self.deliveries = deliveries
        self.refusals = refusals
        self.served = served
        self.faults = faults
        self.actions = actions
    }

    /// Why a record could not be read.
    public enum ReadError: Error, CustomStringConvertible {
        case missing(file: String)
        case unreadable(file: String, reason: String)

        public var description: String {
            switch self {
            case .missing(let file): "\(file) is missing (a match-day record holds \(MatchDayRecord.files.joined(separator: ", ")))"
            case .unreadable(let file, let reason): "\(file) could not be read: \(reason)"
            }
        }
    }

    /// The files of a record.
    public static let files = ["matches.json", "deliveries.json", "refusals.json", "served.json", "faults.json", "actions.json"]

    /// Writes the record into `directory` (created when missing).
    public func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(matches).write(to: directory.appendingPathComponent("matches.json"))
        try encoder.encode(deliveries).write(to: directory.appendingPathComponent("deliveries.json"))
        try encoder.encode(refusals).write(to: directory.appendingPathComponent("refusals.json"))
        try encoder.encode(served).write(to: directory.appendingPathComponent("served.json"))
        try encoder.encode(faults).write(to: directory.appendingPathComponent("faults.json"))
        try encoder.encode(actions).write(to: directory.appendingPathComponent("actions.json"))
    }

    /// Reads the record written into `directory`.
    public static func read(from directory: URL) throws(ReadError) -> MatchDayRecord {
        func load<T: Decodable>(_ name: String, as type: T.Type) throws(ReadError) -> T {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { throw .missing(file: url.path) }
            do {
                return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
            } catch {
                throw .unreadable(file: url.path, reason: "\(error)")
            }
        }
        return MatchDayRecord(
            matches: try load("matches.json", as: [Match].self), deliveries: try load("deliveries.json", as: [MockAPNsDelivery].self),
            refusals: try load("refusals.json", as: [MockAPNsRefusal].self), served: try load("served.json", as: [ServedPosition].self),
            faults: try load("faults.json", as: [MatchDayFault].self), actions: try load("actions.json", as: [MatchDayAction].self))
    }

    /// The Cricsheet match of every fixture, each file read once.
    public func cricsheetMatches() throws(ReadError) -> [String: CricsheetMatch] {
        var loaded: [String: CricsheetMatch] = [:]
        for match in matches {
            do {
                loaded[match.fixture] = try CricsheetMatch.load(contentsOf: URL(fileURLWithPath: match.cricsheetFile))
            } catch {
                throw .unreadable(file: match.cricsheetFile, reason: "\(error)")
            }
        }
        return loaded
    }
}
