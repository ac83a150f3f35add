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
}
