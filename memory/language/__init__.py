"""The language rules of memory, English and Chinese: pure logic on text, no model and no store.

One module per concern, each rule defined once: ``text`` (the sentence splitter, a text's language), ``words``
(content units), ``slots`` (the table of persons and slots, the age pattern), ``change`` (a stated change),
``facts`` (one fact), ``gates`` (what a verifier's verdict may do), ``junk`` (what is never a memory), ``meaning``
and ``standalone`` (a memory keeps the user's meaning and says whose it is), ``links`` (memories about one
subject), ``answers`` (a small model's answer checked), ``attribution`` (the memories an answer used),
``temporal`` (time phrases).
"""
