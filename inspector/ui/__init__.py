"""The Textual app. Imported only by the CLI's app branch: the core and headless commands never load Textual."""
