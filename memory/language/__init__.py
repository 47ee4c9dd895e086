"""The language rules of memory, English and Chinese: pure logic on text, no model and no store."""
