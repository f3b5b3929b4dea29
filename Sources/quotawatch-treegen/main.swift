import Foundation

exit(TreegenCommand.run(arguments: Array(CommandLine.arguments.dropFirst())))
