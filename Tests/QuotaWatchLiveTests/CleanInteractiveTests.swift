import Foundation
import Glibc
import QuotaWatchTestSupport
import Testing

/// `quotawatch clean ROOT` on a real terminal: tmux gives it one, sends the keys and shows
/// the screen. Skipped where tmux is not installed.
@Suite("clean on a terminal")
struct CleanInteractiveTests {
    private func command(_ setup: CleanFixture) -> String {
        "env LANG=C.UTF-8 STATE_DIRECTORY='\(setup.state.rootPath)' '\(setup.fixture.cli.executablePath)' "
            + "clean '\(setup.rootPath)'; echo EXIT=$?"
    }

    @Test(
        "space marks a category, enter shows the count and size, y deletes just that; q deletes nothing",
        .enabled(if: ProcessRunner.findExecutable("tmux") != nil, "needs tmux (Debian's tmux package)"))
    func markConfirmDelete() throws {
        let setup = try CleanFixture()
        let tmux = try Tmux(
            path: try #require(ProcessRunner.findExecutable("tmux")), socket: setup.tree.absolutePath("tmux.sock"))
        // The tree holds the server's socket: it must outlive the kill-server that needs it.
        defer { withExtendedLifetime(setup) { tmux.killServer() } }
        let leftovers = CleanFixture.expected.filter { $0.value == "leftovers" }.map(\.key)

        tmux.type(command(setup))
        try tmux.waitFor("the page") { $0.contains("space: mark") }
        tmux.keys("Space")
        try tmux.waitFor("the marked leftovers") { $0.contains("marked 3 file(s)") }
        tmux.keys("q")
        var screen = try tmux.waitFor("the exit") { $0.contains("EXIT=0") }
        #expect(screen.contains("Nothing was deleted."))
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "q removed \(path)") }

        tmux.keys("clear", "Enter")
        tmux.type(command(setup))
        screen = try tmux.waitFor("the page") { $0.contains("space: mark") }
        #expect(screen.contains("leftovers — download leftovers"), "\(screen)")
        tmux.keys("Space")
        try tmux.waitFor("the marked leftovers") { $0.contains("marked 3 file(s)") }
        tmux.keys("Enter")
        try tmux.waitFor("the confirmation") { $0.contains("Delete 3 file(s)") }
        tmux.keys("y")
        screen = try tmux.waitFor("the exit") { $0.contains("EXIT=0") }
        #expect(screen.contains("removed 3 file(s)"), "\(screen)")
        for path in CleanFixture.expected.keys {
            #expect(try setup.exists(path) == !leftovers.contains(path), "\(path)")
        }
        let intents = try setup.auditRecords().filter { $0["record"] as? String == "intent" }
        #expect(Set(intents.compactMap { $0["path"] as? String }) == Set(leftovers))
    }

    @Test(
        "in a 5x2 window the keys space, down, space, enter, y delete nothing: the question cannot be shown, and it says so",
        .enabled(if: ProcessRunner.findExecutable("tmux") != nil, "needs tmux (Debian's tmux package)"))
    func tinyWindowDeletesNothing() throws {
        let setup = try CleanFixture()
        let tmux = try Tmux(
            path: try #require(ProcessRunner.findExecutable("tmux")), socket: setup.tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(setup) { tmux.killServer() } }
        // At 5x2 the exit status cannot be read on the screen: it goes to a file.
        let exitFile = setup.state.absolutePath("exit")
        tmux.resize(columns: 5, rows: 2)
        tmux.type(
            "env LANG=C.UTF-8 STATE_DIRECTORY='\(setup.state.rootPath)' '\(setup.fixture.cli.executablePath)' "
                + "clean '\(setup.rootPath)'; echo EXIT=$? >'\(exitFile)'")
        try tmux.waitFor("the page in 5x2") { _ in tmux.alternateScreenIsOn }
        tmux.keys("Space", "Down", "Space", "Enter", "y")
        // Either the blind y deleted and the page ended, or the window says it is too small.
        try tmux.waitFor("the too-small notice or the end") {
            $0.hasPrefix("wind") || FileManager.default.fileExists(atPath: exitFile)
        }
        let removed = try CleanFixture.expected.keys.filter { try !setup.exists($0) }
        #expect(removed.isEmpty, "the tiny window deleted \(removed.count) file(s): \(removed.sorted())")
        #expect(try setup.auditRecords().isEmpty)
        guard removed.isEmpty else { return }
        // n cancels after the y (keys arrive in order), so y was read and did nothing; enlarged,
        // the page is back with its marks, and q leaves it.
        tmux.keys("n")
        try tmux.waitFor("the page again") { $0.hasPrefix("Stor") }
        tmux.resize(columns: 100, rows: 30)
        try tmux.waitFor("the page at 100x30") { $0.contains("space: mark") }
        tmux.keys("q")
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: exitFile) && ContinuousClock.now < deadline { usleep(50_000) }
        #expect((try? String(contentsOfFile: exitFile, encoding: .utf8)) == "EXIT=0\n")
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path) was removed") }
        #expect(try setup.auditRecords().isEmpty)
    }

    @Test(
        "the terminal going away (window closed, ssh lost) ends the page, deleting nothing, instead of spinning",
        .enabled(if: ProcessRunner.findExecutable("tmux") != nil, "needs tmux (Debian's tmux package)"))
    func terminalHangUp() throws {
        let setup = try CleanFixture()
        let tmux = try Tmux(
            path: try #require(ProcessRunner.findExecutable("tmux")), socket: setup.tree.absolutePath("tmux.sock"))
        defer { withExtendedLifetime(setup) { tmux.killServer() } }
        tmux.type(command(setup))
        try tmux.waitFor("the page") { $0.contains("space: mark") }
        tmux.keys("Space")
        try tmux.waitFor("the marked leftovers") { $0.contains("marked 3 file(s)") }
        let page = try #require(tmux.foregroundChild(), "no process in the pane")
        defer { kill(page, SIGKILL) }  // only if it outlived the test's checks

        tmux.killServer()  // the pane's terminal is closed under the page
        // An orphan is reaped by another process: nothing here can wait on it, so poll.
        let deadline = ContinuousClock.now + .seconds(30)
        while WatchTmuxTests.isRunning(page) && ContinuousClock.now < deadline { usleep(50_000) }
        #expect(!WatchTmuxTests.isRunning(page), "clean still runs after its terminal went away")
        for path in CleanFixture.expected.keys { #expect(try setup.exists(path), "\(path) was removed") }
        #expect(try setup.auditRecords().isEmpty)
    }
}
