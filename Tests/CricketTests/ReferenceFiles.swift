import Foundation

/// Locates the recorded SportMonks replies: `shared/reference/sportmonks` next to the repository
/// (<repo>/../shared, or further up for a worktree checkout), or env SPORTMONKS_REFERENCE_DIR.
enum ReferenceFiles {
    static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["SPORTMONKS_REFERENCE_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let relative = "shared/reference/sportmonks"
        for _ in 0..<4 {
            dir = dir.deletingLastPathComponent()
            let candidate = dir.appendingPathComponent(relative)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(relative)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }
}
