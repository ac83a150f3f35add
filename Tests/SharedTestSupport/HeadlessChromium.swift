import Foundation

/// A page as headless Chromium renders it (JavaScript run for a few seconds of virtual time, DOM dumped).
public enum HeadlessChromium {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "headless Chromium is missing: install it with scripts/setup (Debian package chromium)" }
    }

    /// The rendered DOM of `url`.
    /// - Throws: `Missing` when no Chromium is installed.
    public static func dom(_ url: String) async throws -> String {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        guard let browser = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Missing() }
        let (_, data) = try await ChildProcess.run(URL(fileURLWithPath: browser), [
            "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--virtual-time-budget=5000", "--dump-dom", url,
        ])
        return String(decoding: data, as: UTF8.self)
    }

    /// Renders `url` (scripts run for a few seconds of virtual time, navigations followed) into a PNG at `path`, a
    /// `width`×`height` window.
    /// - Throws: `Missing` when no Chromium is installed.
    public static func screenshot(_ url: String, to path: String, width: Int = 1280, height: Int = 1600) async throws {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        guard let browser = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Missing() }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = try await ChildProcess.run(URL(fileURLWithPath: browser), [
            "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars", "--virtual-time-budget=5000",
            "--window-size=\(width),\(height)", "--screenshot=\(path)", url,
        ])
    }

    /// Where tests keep what they render for people to look at: `$TEST_ARTIFACTS_DIR`, else `.build/test-artifacts`.
    public static var artifactsDirectory: String {
        ProcessInfo.processInfo.environment["TEST_ARTIFACTS_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.currentDirectoryPath + "/.build/test-artifacts"
    }
}
