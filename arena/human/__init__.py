"""A person at the table: their seat speaks the bot protocol (requests in, replies out)
through a front end that shows text and reads entries (the terminal, or a chat client), and
sits behind the same session interface as a bot, so a match treats it as any other seat."""
