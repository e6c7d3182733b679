" The lexical syntax rule and graph files share (docs/rules-language.md),
" sourced by rwrules.vim and rwgraph.vim. The reserved words are
" dsl::kKeywords of engine/dsl/literals.hpp.

syn case match

syn match   rwComment      "#.*$" contains=@Spell
syn region  rwString       start=+"+ skip=+\\\\\|\\"+ end=+"\|$+ oneline contains=rwEscape
syn match   rwEscape       contained +\\[\"\\nt]+

syn keyword rwStatement    import ruleset rule declare input output def const
syn keyword rwGuard        where
syn keyword rwLogical      and or not
syn keyword rwFloat        inf nan

syn match   rwArrow        "=>"
syn match   rwOperator     "\*\*\|[-+*/]\|==\|!=\|<=\|>=\|<\|>"
syn match   rwAssign       "=\([=>]\)\@!"
syn match   rwPunct        "[:,]"

syn match   rwFloat        "\<\d\+\.\d*\([eE][-+]\=\d\+\)\=\w\@!"
syn match   rwFloat        "\.\d\+\([eE][-+]\=\d\+\)\=\w\@!"
syn match   rwFloat        "\<\d\+[eE][-+]\=\d\+\w\@!"
syn match   rwInteger      "\<\d\+\([.[:alnum:]_]\)\@!"

syn match   rwPatternVar   "?\h\w*"
syn match   rwGraphName    "%\w\+"
syn match   rwCall         "\<\h\w*\ze\s*("

" `sum{axis=(0,)}`: an op's properties in braces, right after its name.
syn match   rwPropOp       "\<\h\w*\ze{" nextgroup=rwProps
syn region  rwProps        contained oneline matchgroup=rwPropBrace start="{" end="}"
      \ contains=rwComment,rwString,rwPropName,rwPropWord,rwDType,rwFloat,rwInteger,rwPatternVar,rwPunct,rwAssign
syn match   rwPropName     contained "\<\h\w*\ze\s*=\([=>]\)\@!"
syn keyword rwPropWord     contained true false none all
syn keyword rwDType        contained bool int8 int16 int32 int64 uint8 float32 float64
      \ i8 i16 i32 i64 u8 f32 f64

hi def link rwComment      Comment
hi def link rwString       String
hi def link rwEscape       SpecialChar
hi def link rwStatement    Statement
hi def link rwGuard        Conditional
hi def link rwLogical      Operator
hi def link rwFloat        Float
hi def link rwInteger      Number
hi def link rwArrow        Operator
hi def link rwOperator     Operator
hi def link rwAssign       Operator
hi def link rwPunct        Delimiter
hi def link rwPatternVar   Identifier
hi def link rwGraphName    Identifier
hi def link rwCall         Function
hi def link rwPropOp       Function
hi def link rwPropBrace    Delimiter
hi def link rwPropName     Identifier
hi def link rwPropWord     Constant
hi def link rwDType        Type
