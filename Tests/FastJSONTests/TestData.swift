import CricsheetReplay
import Foundation

/// Test data next to the repository (<repo>/../shared, or further up for a worktree checkout).
enum TestData {
    static func shared(_ relative: String, env: String) -> URL {
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

    static var cricsheet: URL { shared("shared/data/cricsheet", env: "CRICSHEET_DIR") }
    static var reference: URL { shared("shared/reference/sportmonks", env: "SPORTMONKS_REFERENCE_DIR") }

    /// Every Cricsheet match file in the data directory.
    static func matchFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: cricsheet, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
    }
}
