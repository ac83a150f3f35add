import CricsheetReplay
import Foundation

/// Test data: Cricsheet files (`shared/data/cricsheet`, env CRICSHEET_DIR) and the recorded SportMonks
/// reply (`shared/reference/sportmonks`, env SPORTMONKS_REFERENCE_DIR), found next to the repository
/// (<repo>/../shared, or further up for a worktree checkout).
public enum DataDirectory {
    public static func shared(_ relative: String, env: String) -> URL {
        if let override = ProcessInfo.processInfo.environment[env], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var dir = repo
        for _ in 0..<4 {
            dir = dir.deletingLastPathComponent()
            let candidate = dir.appendingPathComponent(relative)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return repo.deletingLastPathComponent().appendingPathComponent(relative)
    }

    public static var cricsheet: URL { shared("shared/data/cricsheet", env: "CRICSHEET_DIR") }
    public static var reference: URL { shared("shared/reference/sportmonks", env: "SPORTMONKS_REFERENCE_DIR") }

    /// Every match in the data directory: 21 from before issue 32, and the four it added (The Hundred: 1417822,
    /// 1355593; a women's ODI: 1405125; a delivery with two wickets, one of them timed out: 1384429).
    public static let matchIds = [287862, 335982, 1144504, 1144530, 1152848, 1187022, 1187669, 1216517, 1298152, 1304076,
                           1322276, 1322277, 1322280, 1355593, 1359487, 1359519, 1370353, 1384429, 1405125, 1415744,
                           1415755, 1417822, 1426312, 1426557, 1442989]

    /// Every Cricsheet match file in the data directory, sorted by path.
    public static func matchFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: cricsheet, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
    }

    public static func url(_ id: Int) -> URL { cricsheet.appendingPathComponent("\(id).json") }
    public static func match(_ id: Int) throws -> CricsheetMatch { try CricsheetMatch.load(contentsOf: url(id)) }
    public static func raw(_ id: Int) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url(id))) as! [String: Any]
    }
}
